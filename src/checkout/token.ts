import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { Compile } from "typebox/compile";
import type { Ctx } from "../ctx.js";
import { inputFault } from "../lib/input-shape.js";
import { brandSigningSecret, markSigningKeyUsed } from "../merchant-credentials/signing-keys.js";
import { invalidToken } from "./errors.js";
import { CheckoutClaims } from "./schemas.js";
import { refusalOfClaims } from "./token-claims.js";

const checkClaims = Compile(CheckoutClaims);
const keys = new Map<string, KeyObject>();
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, "utf8"));
    keys.set(secret, key);
  }
  return key;
}

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** `cached`: the master secrets' KeyObjects are kept; a brand key's secret is never kept past the request. */
function isSignedBy(secret: string, signed: string, given: Buffer, cached = true): boolean {
  const expected = createHmac("sha256", cached ? keyOf(secret) : secret).update(signed).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * SPEC "Authentication > Checkout token": HS256 only (any other `alg`, `none` included, and any
 * `crit` header are refused), a valid signature, numeric `exp` and `iat`, `exp` in the future and
 * `nbf` (when present) reached by the app's clock, then the claims table. Every refusal is the same
 * 401 `Invalid token`, so the answer tells an attacker nothing about which check failed. The signing
 * secret may be CHECKOUT_TOKEN_SECRET or one of CHECKOUT_TOKEN_SECRET_PREVIOUS (a rotation in progress).
 *
 * CONTRACT §34: a header with `kid` names a brand signing key. Such a token verifies with that key
 * only (never the master secret) and only for that key's brand: a `brandId` claim naming another
 * brand is refused, no `brandId` means the key's brand. Tokens without `kid` are the operator's
 * (master secret) and may name any brand.
 *
 * Issue 33: a `kid` token's mode is its key's (`livemode` in the claims returned; a `livemode` claim
 * that disagrees is invalid). An operator token's mode is its `livemode` claim, or none (the legacy
 * rule at initialize). With PAYMENT_MODE=live a token of test mode is invalid.
 *
 * Verification is node:crypto HMAC with a cached key rather than jose: jose's WebCrypto path cost
 * ~100-150 µs per token against ~7 µs here, on the hottest route (docs/performance.md). Signing stays
 * with jose, and the tests check both directions against it.
 */
export async function verifyCheckoutToken(ctx: Pick<Ctx, "config" | "clock" | "db"> & Partial<Pick<Ctx, "log">>, token: string): Promise<CheckoutClaims> {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw invalidToken();
  const [header, payload, signature] = parts as [string, string, string];

  const protectedHeader = decodeJson(header);
  if (!isObject(protectedHeader) || protectedHeader.alg !== "HS256" || "crit" in protectedHeader) throw invalidToken();

  const signed = `${header}.${payload}`;
  const given = Buffer.from(signature, "base64url");
  const kid = protectedHeader.kid;
  let brandOfKey: string | null = null;
  let modeOfKey: boolean | null = null;
  if (kid !== undefined) {
    if (typeof kid !== "string" || kid.length === 0 || kid.length > 100) throw invalidToken();
    const key = await brandSigningSecret(ctx, kid);
    if (!key || !isSignedBy(key.secret, signed, given, false)) throw invalidToken();
    brandOfKey = key.brandId;
    modeOfKey = key.livemode;
  } else if (
    // The current secret first: during a rotation, tokens signed with a previous one still verify.
    !isSignedBy(ctx.config.checkoutTokenSecret, signed, given) &&
    !ctx.config.checkoutTokenSecretsPrevious.some((secret) => isSignedBy(secret, signed, given))
  ) {
    throw invalidToken();
  }

  const claims = decodeJson(payload);
  if (!isObject(claims) || !isNumber(claims.exp) || !isNumber(claims.iat)) throw invalidToken();
  const now = Math.floor(ctx.clock.now() / 1000);
  if (claims.exp <= now) throw invalidToken();
  if (claims.nbf !== undefined && (!isNumber(claims.nbf) || claims.nbf > now)) throw invalidToken();
  // Claims are stored as json: text PostgreSQL refuses, or nesting beyond the input depth, is no valid token.
  if (!checkClaims.Check(claims) || inputFault(claims)) throw invalidToken();
  // CONTRACT §36: redirect targets and lifetime; the reason goes to the log, never to the caller.
  const refusal = refusalOfClaims(claims as unknown as CheckoutClaims, now);
  if (refusal) {
    ctx.log?.warn({ reason: refusal }, "checkout token refused");
    throw invalidToken();
  }
  // CONTRACT §39: PAYMENT_MODE=live refuses test mode altogether, test tokens included.
  const livemode = modeOfKey ?? (claims.livemode as boolean | undefined);
  if (livemode === false && ctx.config.paymentMode === "live") {
    ctx.log?.warn({ reason: "test-mode token with PAYMENT_MODE=live" }, "checkout token refused");
    throw invalidToken();
  }
  if (brandOfKey === null) return claims as unknown as CheckoutClaims;
  if (claims.brandId !== undefined && claims.brandId !== brandOfKey) throw invalidToken();
  // A brand key's token is of the key's mode: a claim saying otherwise is forged or mistaken.
  if (claims.livemode !== undefined && claims.livemode !== modeOfKey) throw invalidToken();
  await markSigningKeyUsed(ctx, kid as string);
  return { ...(claims as unknown as CheckoutClaims), brandId: brandOfKey, livemode: modeOfKey! };
}

/** Signs claims with the current checkout secret, never a previous one; `iat` is now and `exp` now + lifetime (SPEC recommends at most 1 hour). */
export async function signCheckoutToken(
  ctx: Pick<Ctx, "config" | "clock">,
  claims: Omit<CheckoutClaims, "exp" | "iat">,
  lifetimeSeconds = 3600,
): Promise<{ token: string; expiresAt: number }> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const token = await new SignJWT(claims as Record<string, unknown>)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .sign(new TextEncoder().encode(ctx.config.checkoutTokenSecret));
  return { token, expiresAt: (now + lifetimeSeconds) * 1000 };
}
