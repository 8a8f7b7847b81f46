/** Amounts are integer minor units (SPEC); the currency's own number of decimals converts them. */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency: currency.toUpperCase() });
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}
