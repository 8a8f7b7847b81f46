const digitsByCurrency = new Map<string, number>();

/** The currency's minor-unit digits (EUR 2, JPY 0); 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Minor units as plain decimal text: EUR 4999 → "49.99", JPY 500 → "500". */
export const decimalAmount = (minor: number, currency: string): string => {
  const digits = minorDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
};

// Building an Intl.NumberFormat costs about a hundred times its format(): one per currency, kept.
const moneyFormats = new Map<string, Intl.NumberFormat | null>();

/** Minor units as a buyer reads them: EUR 4999 → "€49.99". */
export function formatMoney(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  let format = moneyFormats.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat("en", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    } catch {
      format = null;
    }
    // One entry per currency code (validated as three letters where it enters).
    moneyFormats.set(currency, format);
  }
  return format ? format.format(minor / 10 ** digits) : `${decimalAmount(minor, currency)} ${currency}`;
}
