// CHECKOUT_TOKEN_SECRET rotation for webhooks: a token's webhookUrl gets one Standard Webhooks
// signature per token secret (a receiver on the new or the old secret verifies), endpoints keep their
// single signature, and demo-scheme notifications signed with a previous secret are accepted.
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner } from "../../test/support/admin.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";
import { ManualClock } from "../lib/clock.js";

const NEW_SECRET = "new-checkout-token-secret-after-rotation-0123";
const UNKNOWN_SECRET = "unknown-checkout-token-secret-0123456789abcdef";

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  // The standardwebhooks verifier checks the timestamp against the real time: start the clock there.
  t = await buildTestApp({
    env: { CHECKOUT_TOKEN_SECRET: NEW_SECRET, CHECKOUT_TOKEN_SECRET_PREVIOUS: TEST_TOKEN_SECRET, ALLOW_PRIVATE_WEBHOOK_URLS: "true" },
    clock: new ManualClock(Date.now()),
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
afterEach(() => {
  receiver.received.length = 0;
});

const rawVerifier = (secret: string) => new Webhook(new TextEncoder().encode(secret), { format: "raw" });
const verifyWith = (verifier: Webhook, request: Receiver["received"][number]) =>
  verifier.verify(request.body, request.headers as Record<string, string>) as { type: string };

describe("outgoing webhooks during a rotation", () => {
  it("signs a token's webhookUrl deliveries with the current and the previous secret, each verifiable alone", async () => {
    // completeCheckoutViaApi signs its token with TEST_TOKEN_SECRET: the previous secret, still accepted.
    await completeCheckoutViaApi(t, { claims: { webhookUrl: `${receiver.url}/token-hook` } });
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received.map((r) => JSON.parse(r.body).type).sort()).toEqual(["checkout.completed", "checkout.created", "order.confirmed", "payment.succeeded"]);
    for (const request of receiver.received) {
      expect(String(request.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
      expect(verifyWith(rawVerifier(NEW_SECRET), request).type).toBe(JSON.parse(request.body).type);
      expect(verifyWith(rawVerifier(TEST_TOKEN_SECRET), request).type).toBe(JSON.parse(request.body).type);
      expect(() => verifyWith(rawVerifier(UNKNOWN_SECRET), request)).toThrow();
    }
  });

  it("keeps a single signature, by the endpoint's own secret, for endpoint deliveries", async () => {
    const owner = await registerOwner(t, "Rotation shop");
    const res = await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { name: "Receiver", url: `${receiver.url}/hook`, events: ["checkout.created"] } });
    expect(res.statusCode, res.body).toBe(200);
    await completeCheckoutViaApi(t, { claims: { brandId: owner.brandId } });
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(String(request.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verifyWith(new Webhook(json(res).secret as string), request).type).toBe("checkout.created");
    expect(() => verifyWith(rawVerifier(NEW_SECRET), request)).toThrow();
  });
});

describe("incoming demo-scheme notifications during a rotation", () => {
  const notify = (secret: string) => {
    const body = JSON.stringify({ id: `evt_rotation_${secret.slice(0, 3)}_${Date.now()}`, type: "payment.failed", data: { orderId: "no-such-order" } });
    const timestamp = Math.floor(t.clock.now() / 1000);
    const signature = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
    return t.app.inject({
      method: "POST",
      url: "/api/webhooks/intent_gateway",
      payload: body,
      headers: { "content-type": "application/json", "x-demo-timestamp": String(timestamp), "x-demo-signature": `v1=${signature}` },
    });
  };

  it("accepts a signature by the current or the previous secret and refuses any other", async () => {
    for (const secret of [NEW_SECRET, TEST_TOKEN_SECRET]) {
      const res = await notify(secret);
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).outcome).toBe("unmatched");
    }
    const refused = await notify(UNKNOWN_SECRET);
    expect(refused.statusCode).toBe(400);
    expect(json(refused).error).toBe("Invalid webhook signature");
  });
});
