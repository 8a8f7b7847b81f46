import { Secret, TOTP } from "otpauth";
import { safeEqual } from "../lib/crypto.js";
import { TOTP_PERIOD_SECONDS } from "./policy.js";

// CONTRACT §10: RFC 6238, SHA-1, 6 digits, 30 s, one step of clock drift either way.
const PARAMS = { algorithm: "SHA1", digits: 6, period: TOTP_PERIOD_SECONDS } as const;
const ISSUER = "Checkout Admin";

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUrl(secretBase32: string, account: string): string {
  return new TOTP({ ...PARAMS, issuer: ISSUER, label: account, secret: Secret.fromBase32(secretBase32) }).toString();
}

export function totpCode(secretBase32: string, timestampMs: number): string {
  return TOTP.generate({ ...PARAMS, secret: Secret.fromBase32(secretBase32), timestamp: timestampMs });
}

export function stepOf(timestampMs: number): number {
  return Math.floor(timestampMs / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The 30 s step the code belongs to (previous, current or next), or null. The caller then claims
 * the step so each code is accepted once. Every candidate is compared, in constant time.
 */
export function matchTotpStep(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  let matched: number | null = null;
  for (const delta of [-1, 0, 1]) {
    const at = nowMs + delta * TOTP_PERIOD_SECONDS * 1000;
    if (safeEqual(totpCode(secretBase32, at), code) && matched === null) matched = stepOf(at);
  }
  return matched;
}
