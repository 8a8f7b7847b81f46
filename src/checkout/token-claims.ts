import { isSafeRedirectUrl } from "../lib/redirect-url.js";

/** CONTRACT §36: a token's `iat` may be at most this far ahead of our clock (clock skew). */
export const MAX_IAT_SKEW_SECONDS = 60;
/** CONTRACT §36: `exp - iat` at most 24 hours (SPEC recommends 1 hour; docs/checkout.md). */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;

/**
 * Why verified claims may still not be accepted, or null: the redirect targets (absolute http(s),
 * no userinfo) and the lifetime. The caller answers 401 `Invalid token` and logs the reason.
 */
export function refusalOfClaims(claims: { iat: number; exp: number; successUrl?: unknown; cancelUrl?: unknown }, nowSeconds: number): string | null {
  for (const field of ["successUrl", "cancelUrl"] as const) {
    if (claims[field] !== undefined && !isSafeRedirectUrl(claims[field])) return `${field} is not an absolute http(s) URL without userinfo`;
  }
  if (claims.iat > nowSeconds + MAX_IAT_SKEW_SECONDS) return `iat is more than ${MAX_IAT_SKEW_SECONDS} s in the future`;
  if (claims.exp - claims.iat > MAX_TOKEN_LIFETIME_SECONDS) return `lifetime (exp - iat) is over ${MAX_TOKEN_LIFETIME_SECONDS} s`;
  return null;
}
