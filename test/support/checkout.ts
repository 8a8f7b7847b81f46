import { SignJWT } from "jose";
import { brands, organizations, providerSettings } from "../../src/db/schema/index.js";
import { newId } from "../../src/lib/ids.js";
import { TEST_TOKEN_SECRET, type TestApp } from "./app.js";

/** Checkout token claims for tests: a valid order unless overridden. */
export function orderClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { orderId: `ord-${newId("t").slice(2, 14)}`, amount: 5000, currency: "USD", productName: "Test product", ...overrides };
}

/**
 * Signs a checkout token as a merchant would: HS256 with the test secret, iat now and exp in one
 * hour by the app's clock, unless the claims or options say otherwise.
 */
export async function signToken(
  t: TestApp,
  claims: Record<string, unknown> = orderClaims(),
  options: { secret?: string; alg?: string; expiresInSeconds?: number; omit?: ("exp" | "iat")[] } = {},
): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  const body: Record<string, unknown> = { iat: now, exp: now + (options.expiresInSeconds ?? 3600), ...claims };
  for (const name of options.omit ?? []) delete body[name];
  return new SignJWT(body).setProtectedHeader({ alg: options.alg ?? "HS256", typ: "JWT" }).sign(new TextEncoder().encode(options.secret ?? TEST_TOKEN_SECRET));
}

/** A fresh organization and brand of the test's own, optionally with provider settings rows. */
export async function createBrand(
  t: TestApp,
  options: { providers?: { provider: string; enabled?: boolean; publicValues?: Record<string, unknown> }[]; deleted?: boolean } = {},
): Promise<{ brandId: string; organizationId: string }> {
  const db = t.deps.database.db;
  const now = new Date(t.clock.now());
  const organizationId = newId("org");
  const brandId = newId("brand");
  await db.insert(organizations).values({ id: organizationId, name: "Test org", slug: organizationId.toLowerCase(), createdAt: now });
  await db.insert(brands).values({ id: brandId, organizationId, name: "Test brand", slug: "test", createdAt: now, deletedAt: options.deleted ? now : null });
  for (const p of options.providers ?? []) {
    await db.insert(providerSettings).values({ brandId, provider: p.provider, enabled: p.enabled ?? true, publicValues: p.publicValues ?? {}, updatedAt: now });
  }
  return { brandId, organizationId };
}

export const post = (t: TestApp, url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, payload: payload as object, headers: { "content-type": "application/json", ...headers } });
