/**
 * Address rules by country (issue 36): whether the state/region and the postal code are asked and
 * required, their format, and the labels a buyer of that country expects. One table for the checkout
 * page (web/src/shared/address-rules.ts re-exports it: dependency-free, so it may reach the bundle)
 * and the server (checkout/complete.ts checks the addresses it stores with it). docs/merchant-guide.md
 * "Shipping address" lists it.
 */

export interface AddressPartRule {
  /** The field's label ("ZIP code", "County (optional)"). */
  label: string;
  required: boolean;
  /** The format, checked on the trimmed value (case-insensitive); none: any text. */
  pattern?: RegExp;
  /** A value in that format, for the problem sentence. */
  example?: string;
}

export interface CountryAddressRules {
  /** null: the country's addresses have no state or region, the field is not asked. */
  state: AddressPartRule | null;
  postalCode: AddressPartRule;
}

const optional = (label: string): AddressPartRule => ({ label: `${label} (optional)`, required: false });
const required = (label: string): AddressPartRule => ({ label, required: true });
const code = (label: string, pattern: RegExp, example: string): AddressPartRule => ({ label, required: true, pattern, example });

/** A country not listed, or none chosen yet: both asked, neither required, any format. */
export const DEFAULT_ADDRESS_RULES: CountryAddressRules = {
  state: { label: "State / region", required: false },
  postalCode: { label: "Postal code", required: false },
};

export const ADDRESS_RULES: Readonly<Record<string, CountryAddressRules>> = {
  US: { state: required("State"), postalCode: code("ZIP code", /^\d{5}(-\d{4})?$/, "94103") },
  CA: { state: required("Province"), postalCode: code("Postal code", /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i, "K1A 0B1") },
  GB: { state: optional("County"), postalCode: code("Postcode", /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, "SW1A 1AA") },
  IE: { state: required("County"), postalCode: { label: "Eircode (optional)", required: false, pattern: /^[A-Z]\d[\dW] ?[A-Z\d]{4}$/i, example: "D02 X285" } },
  DE: { state: null, postalCode: code("Postcode", /^\d{5}$/, "10115") },
  FR: { state: null, postalCode: code("Postcode", /^\d{5}$/, "75001") },
  NL: { state: null, postalCode: code("Postcode", /^\d{4} ?[A-Z]{2}$/i, "1012 AB") },
  AU: { state: required("State / territory"), postalCode: code("Postcode", /^\d{4}$/, "2000") },
  NZ: { state: optional("Region"), postalCode: code("Postcode", /^\d{4}$/, "6011") },
  JP: { state: required("Prefecture"), postalCode: code("Postal code", /^\d{3}-?\d{4}$/, "100-0001") },
  IN: { state: required("State"), postalCode: code("PIN code", /^\d{6}$/, "110001") },
  BR: { state: required("State"), postalCode: code("CEP", /^\d{5}-?\d{3}$/, "01310-100") },
  ES: { state: required("Province"), postalCode: code("Postal code", /^\d{5}$/, "28013") },
  IT: { state: required("Province"), postalCode: code("CAP", /^\d{5}$/, "00184") },
};

/** The rules of an ISO 3166-1 alpha-2 country (any case); the default for any other. */
export function addressRulesOf(country: string): CountryAddressRules {
  return ADDRESS_RULES[country.trim().toUpperCase()] ?? DEFAULT_ADDRESS_RULES;
}

/** "ZIP code" → "ZIP code"; "County (optional)" → "county": the label as it reads inside a sentence. */
const inSentence = (label: string) => {
  const bare = label.replace(/ \(optional\)$/, "");
  return /^[A-Z]{2,}/.test(bare) ? bare : bare.charAt(0).toLowerCase() + bare.slice(1);
};

/** What is wrong with one part, or undefined: required and empty, or not in the country's format. */
export function addressPartProblem(rule: AddressPartRule | null, value: string): string | undefined {
  if (!rule) return undefined;
  const v = value.trim();
  if (!v) return rule.required ? `Enter your ${inSentence(rule.label)}.` : undefined;
  if (rule.pattern && !rule.pattern.test(v)) return `Enter a ${inSentence(rule.label)} like ${rule.example}.`;
  return undefined;
}

/** The address's state and postal code problems under its country's rules (empty: none). */
export function addressProblems(address: { state?: string; postalCode?: string; country: string }): { state?: string; postalCode?: string } {
  const rules = addressRulesOf(address.country);
  const problems: { state?: string; postalCode?: string } = {};
  const state = addressPartProblem(rules.state, address.state ?? "");
  const postalCode = addressPartProblem(rules.postalCode, address.postalCode ?? "");
  if (state) problems.state = state;
  if (postalCode) problems.postalCode = postalCode;
  return problems;
}
