// CONTRACT §40 (issue 31 item 1) on every administration create that honours Idempotency-Key: the
// key names what the first request made. A retry after the request died (its reservation `running`
// and a minute old, taken over) or after the stored answer's 24 hours answers that resource and
// makes no second one; another body is 422; another organization's key string is its own. The
// creations that show a secret once (API keys, signing keys, webhook endpoints) never store their
// answer and answer a repeat 409 naming what the key made. Refunds, v1 checkouts and upsell
// sessions have theirs in src/orders/refunds.test.ts, src/merchant-api/merchant-api.test.ts,
// src/upsell/create-session.test.ts and test/cluster/retry-after-takeover.unit.test.ts.
import { count, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, brands, idempotencyKeys, memberships, paymentLinks, salespeople, shortLinks, brandSigningKeys, webhookEndpoints } from "../../src/db/schema/index.js";
import { registerOwner, type Registered } from "../support/admin.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { abandonReservation, expireReservation } from "../support/idempotency.js";
import { call, PASSWORD, uniqueEmail } from "../support/identity.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
/** A salesperson of each organization, by session (a sales link names one of its own). */
const sellers = new Map<string, string>();
beforeAll(async () => {
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  shop = await registerOwner(t, "Shop");
  rival = await registerOwner(t, "Rival");
  for (const owner of [shop, rival]) {
    const seller = await call(t, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam", email: uniqueEmail("sam"), password: PASSWORD } });
    sellers.set(owner.session, json(seller).salesperson.id);
  }
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const rowsOf = async (query: Promise<{ n: number }[]>) => Number((await query)[0]!.n);
let seq = 0;
const keyOf = (name: string) => `${name}-${++seq}`;
const send = (path: string, body: unknown, key: string, session = shop.session) => call(t, "POST", path, { session, body, headers: { "idempotency-key": key } });

interface Create {
  path: string;
  body: (of: Registered) => Record<string, unknown>;
  /** The same request with one parameter changed. */
  vary: (body: Record<string, any>) => Record<string, unknown>;
  /** How many of these the organization (or user) has: one more after the first request, none after a retry. */
  made: (session: Registered) => Promise<number>;
}

const CREATES: Record<string, Create> = {
  "payment link": {
    path: "/api/admin/payment-links",
    vary: (body) => ({ ...body, price: 5000 }),
    body: () => ({ productName: "Course", price: 4900, currency: "USD" }),
    made: (of) => rowsOf(db().select({ n: count() }).from(paymentLinks).where(eq(paymentLinks.brandId, of.brandId))),
  },
  "sales link": {
    path: "/api/admin/tools/generate-link",
    vary: (body) => ({ ...body, orderInfo: { ...body.orderInfo, total: 5000 } }),
    body: (of) => ({ salespersonId: sellers.get(of.session), orderInfo: { productName: "Course", total: 4900, currency: "USD" } }),
    made: (of) => rowsOf(db().select({ n: count() }).from(shortLinks).where(eq(shortLinks.brandId, of.brandId))),
  },
  user: {
    path: "/api/admin/users",
    vary: (body) => ({ ...body, name: "Other" }),
    body: () => ({ email: uniqueEmail("staff"), password: PASSWORD, name: "Staff", role: "member", brandIds: [] }),
    made: (of) => rowsOf(db().select({ n: count() }).from(memberships).where(eq(memberships.organizationId, of.organizationId))),
  },
  organization: {
    path: "/api/admin/organizations",
    vary: (body) => ({ ...body, name: `${body.name} two` }),
    body: () => ({ name: `Branch ${seq}` }),
    made: (of) => rowsOf(db().select({ n: count() }).from(memberships).where(eq(memberships.userId, of.userId))),
  },
  brand: {
    path: "/api/admin/brands",
    vary: (body) => ({ ...body, name: `${body.name} two` }),
    body: () => ({ name: `Label ${seq}` }),
    made: (of) => rowsOf(db().select({ n: count() }).from(brands).where(eq(brands.organizationId, of.organizationId))),
  },
  salesperson: {
    path: "/api/admin/salespeople",
    vary: (body) => ({ ...body, name: "Other" }),
    body: () => ({ name: "Kim", email: uniqueEmail("kim"), password: PASSWORD }),
    made: (of) => rowsOf(db().select({ n: count() }).from(salespeople).where(eq(salespeople.organizationId, of.organizationId))),
  },
};

describe.each(Object.entries(CREATES))("%s: an Idempotency-Key names what it made, for good", (_name, create) => {
  it("a retry after the dead request's reservation was taken over, or after its 24 hours, answers the same resource and makes no second", async () => {
    const key = keyOf("create");
    const body = create.body(shop);
    const before = await create.made(shop);
    const first = await send(create.path, body, key);
    expect(first.statusCode, first.body).toBe(200);
    expect(await create.made(shop)).toBe(before + 1);

    await abandonReservation(t, key);
    const retry = await send(create.path, body, key);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(json(retry)).toEqual(json(first));
    await expireReservation(t, key);
    const later = await send(create.path, body, key);
    expect(json(later)).toEqual(json(first));
    expect(await create.made(shop)).toBe(before + 1);

    await abandonReservation(t, key);
    const other = await send(create.path, create.vary(body), key);
    expect(other.statusCode, other.body).toBe(422);
    expect(json(other)).toMatchObject({ error: "Idempotency key reused with different parameters", code: "IDEMPOTENCY_KEY_REUSED" });
    expect(await create.made(shop)).toBe(before + 1);
  });

  it("another organization sending the same key string and body gets its own", async () => {
    const key = keyOf("shared");
    const body = create.body(shop);
    const theirs = await send(create.path, body, key);
    expect(theirs.statusCode, theirs.body).toBe(200);
    await db().delete(idempotencyKeys).where(eq(idempotencyKeys.key, key)); // only the effects' bindings left
    const before = await create.made(rival);
    // The same body, but for the salesperson a sales link names, which is the shop's: the rival names its own.
    const mine = await send(create.path, { ...body, ...("salespersonId" in body ? { salespersonId: sellers.get(rival.session) } : {}) }, key, rival.session);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(JSON.stringify(json(mine))).not.toBe(JSON.stringify(json(theirs)));
    expect(await create.made(rival)).toBe(before + 1);
  });
});

describe("creations that show a secret once (API keys, signing keys, webhook endpoints)", () => {
  const SECRET_CREATES = [
    { name: "API key", path: "/api/admin/api-keys", body: { name: "server" }, idOf: (r: Record<string, any>) => r.apiKey.id as string, table: apiKeys, brandColumn: apiKeys.brandId },
    { name: "signing key", path: "/api/admin/signing-keys", body: undefined, idOf: (r: Record<string, any>) => r.signingKey.kid as string, table: brandSigningKeys, brandColumn: brandSigningKeys.brandId },
    { name: "webhook endpoint", path: "/api/admin/webhooks", body: { url: "http://127.0.0.1:9/hooks", events: ["*"] }, idOf: (r: Record<string, any>) => r.id as string, table: webhookEndpoints, brandColumn: webhookEndpoints.brandId },
  ] as const;

  it.each(SECRET_CREATES)("$name: a repeat of the key is 409 naming what it made, never a second one, and the secret is never stored with the key", async ({ path, body, idOf, table, brandColumn }) => {
    const key = keyOf("secret");
    const made = () => rowsOf(db().select({ n: count() }).from(table).where(eq(brandColumn, shop.brandId)));
    const before = await made();
    const first = await send(path, body, key);
    expect(first.statusCode, first.body).toBe(200);
    const secret = json(first).secret as string;
    expect(secret).toEqual(expect.any(String));
    const stored = await db().select().from(idempotencyKeys).where(like(idempotencyKeys.key, key));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const id = idOf(json(first));
    for (const abandoned of [false, true]) {
      if (abandoned) await db().update(idempotencyKeys).set({ state: "running", createdAt: new Date(t.clock.now() - 61_000) }).where(eq(idempotencyKeys.key, key));
      const repeat = await send(path, body, key);
      expect(repeat.statusCode, repeat.body).toBe(409);
      expect(json(repeat)).toMatchObject({ code: "IDEMPOTENCY_KEY_USED", resourceId: id, error: expect.stringContaining(id) });
      expect(repeat.body).not.toContain(secret);
    }
    expect(await made()).toBe(before + 1);
    if (body !== undefined) {
      await db().delete(idempotencyKeys).where(eq(idempotencyKeys.key, key));
      expect((await send(path, { ...body, name: "other" }, key)).statusCode).toBe(422);
    }
  });
});
