import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { Compile } from "typebox/compile";
import type { Ctx } from "../ctx.js";
import { invalidToken } from "./errors.js";
import { CheckoutClaims } from "./schemas.js";

const checkClaims = Compile(CheckoutClaims);
const keys = new Map<string, Uint8Array>();

function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new TextEncoder().encode(secret);
    keys.set(secret, key);
  }
  return key;
}

/**
 * SPEC "Authentication > Checkout token": HS256 only (the allow-list refuses `none` and every other
 * algorithm), `exp` and `iat` required, claims checked against the claims table. Every refusal is the
 * same 401 `Invalid token`, so the answer tells an attacker nothing about which check failed.
 */
export async function verifyCheckoutToken(ctx: Pick<Ctx, "config" | "clock">, token: string): Promise<CheckoutClaims> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, keyOf(ctx.config.checkoutTokenSecret), {
      algorithms: ["HS256"],
      requiredClaims: ["exp", "iat"],
      currentDate: new Date(ctx.clock.now()),
    }));
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) throw invalidToken();
    throw error;
  }
  if (!checkClaims.Check(payload)) throw invalidToken();
  return payload as CheckoutClaims;
}

/** Signs claims with the checkout secret; `iat` is now and `exp` now + lifetime (SPEC recommends at most 1 hour). */
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
    .sign(keyOf(ctx.config.checkoutTokenSecret));
  return { token, expiresAt: (now + lifetimeSeconds) * 1000 };
}
