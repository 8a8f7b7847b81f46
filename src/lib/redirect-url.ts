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
