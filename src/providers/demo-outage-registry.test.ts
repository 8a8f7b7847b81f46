// Issue 34: the registry hands a brand's "Simulate outage" switch to the provider's demo adapter in
// test mode only: never to a real adapter (live credentials, or saved sandbox ones), never to another
// brand or provider, never for money already taken (paymentOf, demoPayment).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { createBrand } from "../../test/support/checkout.js";
import { withTransaction } from "../db/transaction.js";
import { setDemoOutage, splitForStorage, upsertProviderSettings } from "./settings-store.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe("the demo outage switch in the provider registry", () => {
  it("reaches the demo adapter's call of that brand and provider in test mode, and nothing else", async () => {
    const { brandId } = await createBrand(t);
    const other = await createBrand(t);
    const db = t.deps.database.db;
    const at = new Date(t.clock.now());
    await withTransaction(db, (tx) => setDemoOutage(tx, { brandId, provider: "vault_gateway_a", demoOutage: "timeout", updatedAt: at }));
    // Live credentials for the same provider: the live adapter is real and never gets the switch.
    const live = splitForStorage("vault_gateway_a", { securityKey: "live-key-0123456789" }, t.deps.config.encryptionKey);
    await upsertProviderSettings(db, { brandId, provider: "vault_gateway_a", enabled: true, ...live, updatedAt: at }, true);
    const registry = t.deps.providers;
    registry.invalidate(brandId);

    const test = await registry.payment("vault_gateway_a", brandId, false);
    expect(test.adapter.demo).toBe(true);
    expect(test.call.demoOutage).toBe("timeout");

    const liveResolved = await registry.payment("vault_gateway_a", brandId, true);
    expect(liveResolved.adapter.demo).toBe(false);
    expect(liveResolved.call.demoOutage).toBeUndefined();

    expect((await registry.payment("vault_gateway_b", brandId, false)).call.demoOutage).toBeUndefined();
    expect((await registry.payment("vault_gateway_a", other.brandId, false)).call.demoOutage).toBeUndefined();
    expect(registry.demoPayment("vault_gateway_a").call.demoOutage).toBeUndefined();
    expect((await registry.paymentOf("vault_gateway_a", brandId, { livemode: false, paidInDemo: true })).call.demoOutage).toBeUndefined();

    // Saved sandbox credentials: test payments go to the real adapter, which the switch does not touch.
    const sandbox = splitForStorage("vault_gateway_a", { securityKey: "sandbox-key-0123456789" }, t.deps.config.encryptionKey);
    await upsertProviderSettings(db, { brandId, provider: "vault_gateway_a", enabled: true, ...sandbox, updatedAt: at }, false);
    registry.invalidate(brandId);
    const sandboxResolved = await registry.payment("vault_gateway_a", brandId, false);
    expect(sandboxResolved.adapter.demo).toBe(false);
    expect(sandboxResolved.call.demoOutage).toBeUndefined();
  });
});
