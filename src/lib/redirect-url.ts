import { validationError } from "./errors.js";

/**
 * CONTRACT §36: the only URLs we redirect or send a browser to, when they come from a merchant
 * (a token's successUrl / cancelUrl, an offer's externalPageUrl): absolute http: or https: URLs
 * with a host and without userinfo, written plainly (no whitespace or control characters, no
 * backslash that a browser would read as a slash). `javascript:`, `data:`, `//host`, ` https://…`
 * and `https://shop@evil` are all refused. web/src/shared/navigation.ts applies the same rule.
 */
export function isSafeRedirectUrl(value: unknown): value is string {
  if (typeof value !== "string" || value.length > 2048) return false;
  if (!/^https?:\/\/[^\s\\/?#@]+([/?#][^\s\\]*)?$/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" && url.username === "" && url.password === "";
}

/** `value` when it is a safe redirect target, else null (rows stored before the check). */
export const safeRedirectOrNull = (value: string | null | undefined): string | null => (isSafeRedirectUrl(value) ? value : null);

/**
 * CONTRACT §36 where a merchant sets redirect targets (a v1 checkout, a payment link): each named member
 * that is present must be a safe redirect target, else 400 `VALIDATION_ERROR` naming it. Refused at
 * creation, so a buyer is never sent to a checkout whose token the page then calls invalid.
 */
export function assertSafeRedirectFields<T extends object>(input: T, fields: readonly (keyof T & string)[]): void {
  for (const field of fields) {
    const value = input[field];
    if (value !== undefined && value !== null && !isSafeRedirectUrl(value)) throw validationError(`${field} must be an absolute http(s) URL without user name or password`, field);
  }
}
