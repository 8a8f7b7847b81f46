/** The currency's number of decimals (2 when the browser does not know it). */
function decimalsOf(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Amounts are integer minor units (SPEC); the currency's own number of decimals converts them. */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency: currency.toUpperCase() });
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
  return format.format(minor / 10 ** decimalsOf(currency));
}

/** What a person typed ("12.50") in minor units of the currency; null when it is not an amount. */
export function parseMoney(typed: string, currency: string): number | null {
  const decimals = decimalsOf(currency);
  const match = new RegExp(`^\\s*(\\d{1,12})(?:[.,](\\d{1,${Math.max(decimals, 1)}}))?\\s*$`).exec(typed);
  if (!match || (decimals === 0 && match[2])) return null;
  return Number(match[1]) * 10 ** decimals + Number((match[2] ?? "").padEnd(decimals, "0") || 0);
}
