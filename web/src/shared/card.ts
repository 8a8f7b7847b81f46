/**
 * The card fields as the buyer types them: brand from the number's prefix, grouping, Luhn and
 * expiry checks. The server checks the same again (src/providers/demo/cards.ts); this only answers sooner.
 */

export interface CardBrand {
  name: string;
  /** Digits per group as typed and shown (Amex 4-6-5). */
  groups: number[];
  /** Security code length. */
  cvc: number;
}

const FOURS = [4, 4, 4, 4, 3];
// First match wins: Discover's 622… range is tried before UnionPay's 62.
const BRANDS: [RegExp, CardBrand][] = [
  [/^3[47]/, { name: "American Express", groups: [4, 6, 5], cvc: 4 }],
  [/^3(0[0-5]|[689])/, { name: "Diners Club", groups: [4, 6, 4], cvc: 3 }],
  [/^35(2[89]|[3-8])/, { name: "JCB", groups: FOURS, cvc: 3 }],
  [/^4/, { name: "Visa", groups: FOURS, cvc: 3 }],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, { name: "Mastercard", groups: FOURS, cvc: 3 }],
  [/^(6011|65|64[4-9]|622(12[6-9]|1[3-9]\d|[2-8]\d\d|9[01]\d|92[0-5]))/, { name: "Discover", groups: FOURS, cvc: 3 }],
  [/^62/, { name: "UnionPay", groups: FOURS, cvc: 3 }],
  [/^(5[06-9]|6\d)/, { name: "Maestro", groups: FOURS, cvc: 3 }],
];
const UNKNOWN: CardBrand = { name: "", groups: FOURS, cvc: 3 };

export const digitsOf = (typed: string) => typed.replace(/\D/g, "");

export function brandOf(digits: string): CardBrand {
  return BRANDS.find(([prefix]) => prefix.test(digits))?.[1] ?? UNKNOWN;
}

/** "4242424242424242" → "4242 4242 4242 4242"; Amex "378282246310005" → "3782 822463 10005". */
export function groupCardNumber(digits: string): string {
  const { groups } = brandOf(digits);
  const parts: string[] = [];
  let at = 0;
  for (const size of groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(" ");
}

export function isLuhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** What the expiry field shows for what was typed: "1" → "1", "4" → "04 / ", "1228" → "12 / 28". */
export function formatExpiry(typed: string, previous: string): string {
  let digits = digitsOf(typed).slice(0, 4);
  if (/^[2-9]$/.test(digits)) digits = `0${digits}`;
  // Deleting the " / " deletes the month's last digit with it.
  if (typed.length < previous.length && previous.endsWith(" / ") && digits.length === 2) return digits.slice(0, 1);
  if (digits.length < 2) return digits;
  return digits.length === 2 && typed.length > previous.length ? `${digits} / ` : `${digits.slice(0, 2)} / ${digits.slice(2)}`.replace(/ \/ $/, "");
}

/** "MM / YY" as the API's month and four-digit year; null when incomplete. */
export function parseExpiry(shown: string): { month: string; year: string } | null {
  const match = /^(\d{2}) \/ (\d{2})$/.exec(shown.trim());
  return match ? { month: match[1]!, year: `20${match[2]}` } : null;
}

/** Why the number cannot be a card, in the buyer's words; undefined when it may be one. */
export function cardNumberProblem(shown: string): string | undefined {
  const digits = digitsOf(shown);
  if (!digits) return "Enter your card number.";
  if (!isLuhnValid(digits)) return "This card number is not valid. Check it and try again.";
  return undefined;
}

export function expiryProblem(shown: string, now = new Date()): string | undefined {
  if (!shown.trim()) return "Enter the expiry date as MM / YY.";
  const expiry = parseExpiry(shown);
  const month = Number(expiry?.month);
  if (!expiry || month < 1 || month > 12) return "Enter the expiry date as MM / YY, for example 04 / 29.";
  // A card is valid through the last day of its expiry month.
  const year = Number(expiry.year);
  if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) return "This card has expired. Use another card.";
  return undefined;
}

export function cvcProblem(shown: string, cardNumber: string): string | undefined {
  const { cvc, name } = brandOf(digitsOf(cardNumber));
  if (!shown.trim()) return "Enter the security code.";
  if (!/^\d+$/.test(shown) || (shown.length !== cvc && !(name === "" && shown.length === 4))) return `Enter the ${cvc}-digit security code${cvc === 4 ? " on the front of the card" : " on the back of the card"}.`;
  return undefined;
}
