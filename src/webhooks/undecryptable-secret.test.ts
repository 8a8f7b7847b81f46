// An endpoint whose secret was sealed with a key this server no longer has (ENCRYPTION_KEY_PREVIOUS
// trimmed one instance too early, issue 21): only that endpoint fails. The round delivers to the
// others, the endpoint's delivery is failed for good with the reason (no retry, no step towards
// disabling the endpoint), /metrics counts it, and the test and resend operations answer 409.
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner } from "../../test/support/admin.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { ManualClock } from "../lib/clock.js";
import { seal } from "../lib/crypto.js";
import { UNDECRYPTABLE_ERROR } from "./worker.js";

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerOwner>>;
let receiver: Receiver;
beforeAll(async () => {
  // The standardwebhooks verifier checks the timestamp against the real time: start the clock there.
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true", SESSION_IDLE_MINUTES: "10000" }, clock: new ManualClock(Date.now()) });
  owner = await registerOwner(t, "Lost key shop");
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const db = () => t.deps.database.db;
async function addEndpoint(path: string) {
  const res = await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { name: path, url: `${receiver.url}${path}`, events: ["*"] } });
  expect(res.statusCode, res.body).toBe(200);
  return json(res) as { id: string; secret: string };
}
const metric = async () => {
  const text = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
  return Number(/^checkout_undecryptable_secrets_total\{table="webhook_endpoints"\} (\d+)$/m.exec(text)?.[1]);
};

describe("a webhook secret sealed with an unknown key", () => {
  it("fails only its endpoint's deliveries, recorded with the reason and counted; the others are delivered", async () => {
    const healthy = await addEndpoint("/healthy");
    const lost = await addEndpoint("/lost");
    // As if sealed by an instance whose key has since been removed from every keyring.
    await db().update(webhookEndpoints).set({ sealedSecret: seal(lost.secret, Buffer.alloc(32, 99)) }).where(eq(webhookEndpoints.id, lost.id));
    const before = await metric();

    await completeCheckoutViaApi(t, { claims: { brandId: owner.brandId } });
    await t.app.webhookWorker.deliverDue();

    const verifier = new Webhook(healthy.secret);
    expect(receiver.received.map((r) => r.path)).toEqual(Array(4).fill("/healthy"));
    for (const request of receiver.received) expect(() => verifier.verify(request.body, request.headers as Record<string, string>)).not.toThrow();

    const lostDeliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, lost.id));
    expect(lostDeliveries).toHaveLength(4);
    for (const delivery of lostDeliveries) {
      expect(delivery.status).toBe("failed");
      expect(delivery.lastError).toMatch(new RegExp(`^${UNDECRYPTABLE_ERROR}: sealed with an unknown key [0-9a-f]{8}`));
      expect(delivery.completedAt).not.toBeNull();
      const attempts = await db().select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id));
      expect(attempts.map((a) => [a.success, a.statusCode])).toEqual([[false, null]]);
    }
    const healthyDeliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, healthy.id));
    expect(healthyDeliveries.map((d) => d.status)).toEqual(Array(4).fill("succeeded"));
    // Our missing key, not the receiver: the endpoint is not marked failing (nor ever auto-disabled for it).
    const [lostRow] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, lost.id));
    expect(lostRow).toMatchObject({ enabled: true, failingSince: null });
    expect((await metric()) - before).toBeGreaterThanOrEqual(1);
    // Nothing is due again: a later round sends nothing more.
    receiver.received.length = 0;
    t.clock.advance(3_600_000);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toEqual([]);

    // The test and resend operations say why instead of answering 500, and write nothing.
    const test = await adminCall(t, "POST", `/api/admin/webhooks/${lost.id}/test`, { session: owner.session });
    expect(test.statusCode).toBe(409);
    expect(json(test)).toMatchObject({ code: "CONFLICT", error: expect.stringContaining("Webhook secret cannot be decrypted") });
    const resend = await adminCall(t, "POST", `/api/admin/webhooks/deliveries/${lostDeliveries[0]!.id}/resend`, { session: owner.session });
    expect(resend.statusCode).toBe(409);
    expect(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, lost.id))).toHaveLength(4);
    expect(receiver.received).toEqual([]);
  });
});
