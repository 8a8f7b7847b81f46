// Checkout-Version on /api/v1 (issue 33 item 4): a key is pinned to the current version when it is
// made, a request without the header gets the key's version, a known one is used and echoed, an
// unknown one is 400 UNKNOWN_API_VERSION; every /api/v1 answer names its version.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, merchantCheckouts } from "../db/schema/index.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { call } from "../../test/support/identity.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { API_VERSIONS, CURRENT_API_VERSION } from "./api-version.js";
import { insertApiKey } from "./store.js";

let t: TestApp;
let owner: Registered;
let key: { id: string; secret: string };
beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerOwner(t, "Version Shop");
  key = await createApiKey(t, owner.session);
});
afterAll(() => t.close());

const checkoutBody = (orderId: string) => ({ orderId, amount: 1000, currency: "USD", productName: "Thing" });

describe("Checkout-Version", () => {
  it("has today's version as the current one, the last of the list", () => {
    expect(CURRENT_API_VERSION).toBe("2026-11-28");
    expect(API_VERSIONS.at(-1)).toBe(CURRENT_API_VERSION);
    for (const version of API_VERSIONS) expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("pins a key made today to today's version, shown when it is made and in the list", async () => {
    const made = await call(t, "POST", "/api/admin/api-keys", { session: owner.session, body: { name: "pinned" } });
    expect(made.statusCode).toBe(200);
    expect(json(made).apiKey.apiVersion).toBe("2026-11-28");
    const list = json(await call(t, "GET", "/api/admin/api-keys", { session: owner.session })).apiKeys as { id: string; apiVersion: string }[];
    expect(list.find((k) => k.id === json(made).apiKey.id)?.apiVersion).toBe("2026-11-28");
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, json(made).apiKey.id));
    expect(row!.apiVersion).toBe("2026-11-28");
  });

  it("gives a key stored without a version (made before versions) the first version", async () => {
    await insertApiKey(t.deps.database.db, {
      id: "key_before_versions",
      organizationId: owner.organizationId,
      brandId: owner.brandId,
      name: "old",
      prefix: "sk_old00000",
      keyHash: "not-a-real-hash",
      scopes: ["orders:read"],
      createdAt: new Date(t.clock.now()),
    });
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, "key_before_versions"));
    expect(row!.apiVersion).toBe(API_VERSIONS[0]);
  });

  it("answers a request without the header with the key's pinned version", async () => {
    const res = await withKey(t, "POST", "/api/v1/checkouts", key.secret, checkoutBody("v-none"));
    expect(res.statusCode, res.body).toBe(201);
    const pinned = (json(await call(t, "GET", "/api/admin/api-keys", { session: owner.session })).apiKeys as { id: string; apiVersion: string }[]).find((k) => k.id === key.id)!.apiVersion;
    expect(res.headers["checkout-version"]).toBe(pinned);
    const read = await withKey(t, "GET", `/api/v1/checkouts/${json(res).id}`, key.secret);
    expect(read.headers["checkout-version"]).toBe(pinned);
  });

  it("uses and echoes a version the request names", async () => {
    const res = await withKey(t, "POST", "/api/v1/checkouts", key.secret, checkoutBody("v-given"), { "checkout-version": "2026-11-28" });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers["checkout-version"]).toBe("2026-11-28");
  });

  it("refuses an unknown version with 400 UNKNOWN_API_VERSION and makes nothing", async () => {
    for (const version of ["2020-01-01", "latest", ""]) {
      const res = await withKey(t, "POST", "/api/v1/checkouts", key.secret, checkoutBody(`v-unknown-${version}`), { "checkout-version": version });
      expect(res.statusCode, version).toBe(400);
      expect(json(res)).toMatchObject({ code: "UNKNOWN_API_VERSION", details: "Checkout-Version", docUrl: "http://checkout.test/docs/errors#UNKNOWN_API_VERSION" });
      expect(json(res).error).toContain("2026-11-28");
      expect(res.headers["checkout-version"]).toBe("2026-11-28");
      const made = await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.orderId, `v-unknown-${version}`));
      expect(made).toEqual([]);
    }
  });

  it("checks the key first (401 before the version), and names the version on every /api/v1 answer, a 404 included", async () => {
    const badKey = await withKey(t, "GET", "/api/v1/orders", `sk_${"z".repeat(40)}`, undefined, { "checkout-version": "1999-01-01" });
    expect(badKey.statusCode).toBe(401);
    expect(badKey.headers["checkout-version"]).toBe(CURRENT_API_VERSION);
    const unknownPath = await withKey(t, "GET", "/api/v1/nothing-here", key.secret);
    expect(unknownPath.statusCode).toBe(404);
    expect(unknownPath.headers["checkout-version"]).toBe(CURRENT_API_VERSION);
    // Outside /api/v1 the header means nothing: neither checked nor answered.
    const outside = await t.app.inject({ method: "GET", url: "/healthz", headers: { "checkout-version": "nonsense" } });
    expect(outside.statusCode).toBe(200);
    expect(outside.headers["checkout-version"]).toBeUndefined();
  });
});
