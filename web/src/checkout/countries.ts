/**
 * ISO 3166-1 alpha-2 codes, two letters each, in one string: the names come from the browser
 * (Intl.DisplayNames, in the buyer's language), so the bundle carries no name table.
 */
const CODES =
  "ADAEAFAGAIALAMAOAQARASATAUAWAXAZBABBBDBEBFBGBHBIBJBLBMBNBOBQBRBSBTBVBWBYBZCACCCDCFCGCHCICKCLCMCNCOCRCUCVCWCXCYCZDEDJDKDMDODZECEEEGEHERESETFIFJFKFMFOFRGAGBGDGEGFGGGHGIGLGMGNGPGQGRGSGTGUGWGYHKHMHNHRHTHUIDIEILIMINIOIQIRISITJEJMJOJPKEKGKHKIKMKNKPKRKWKYKZLALBLCLILKLRLSLTLULVLYMAMCMDMEMFMGMHMKMLMMMNMOMPMQMRMSMTMUMVMWMXMYMZNANCNENFNGNINLNONPNRNUNZOMPAPEPFPGPHPKPLPMPNPRPSPTPWPYQARERORSRURWSASBSCSDSESGSHSISJSKSLSMSNSOSRSSSTSVSXSYSZTCTDTFTGTHTJTKTLTMTNTOTRTTTVTWTZUAUGUMUSUYUZVAVCVEVGVIVNVUWFWSYEYTZAZMZW";

export interface Country {
  code: string;
  name: string;
}

/** Every country, by name in `locale` (the code itself where the browser has no name). */
export function countryList(locale?: string): Country[] {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(locale ? [locale] : undefined, { type: "region" });
  } catch {
    names = null;
  }
  const list: Country[] = [];
  for (let i = 0; i < CODES.length; i += 2) {
    const code = CODES.slice(i, i + 2);
    list.push({ code, name: names?.of(code) ?? code });
  }
  return list.sort((a, b) => a.name.localeCompare(b.name, locale));
}
