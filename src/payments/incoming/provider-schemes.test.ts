// Incoming provider notifications signed with each provider's own scheme and the brand's
// webhookSecret (docs/webhooks.md "Provider schemes"): Stripe-Signature (intent_gateway), NMI
// Webhook-Signature (vault_gateway_a, vault_gateway_b), X-Shopify-Hmac-Sha256 (hosted_store), Standard Webhooks
// (order_crm_a, order_crm_b, cart_gateway). The signatures here are made as each provider makes them
// (Standard Webhooks with the `standardwebhooks` library itself), never with our verifier.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../../test/support/app.js";
import { createBrand } from "../../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { checkouts, incomingWebhookEvents, orders, providerSettings } from "../../db/schema/index.js";
import type { SettingsProvider } from "../../providers/catalog.js";
import { splitForStorage, upsertProviderSettings } from "../../providers/settings-store.js";

type Status = "succeeded" | "failed" | "refunded";
type Provider = "intent_gateway" | "vault_gateway_a" | "vault_gateway_b" | "hosted_store" | "order_crm_a" | "order_crm_b" | "cart_gateway";

let seq = 0;
const unique = (prefix: string) => `${prefix}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;
const hmac = (key: string | Buffer, data: string | Buffer) => createHmac("sha256", key).update(data);

interface Notification {
  body: string | Buffer;
  /** Headers that are part of the notification but not of the signature (Shopify's id and topic). */
  headers?: Record<string, string>;
}

interface ProviderCase {
  provider: Provider;
  /** A body in the provider's own format for the order and status. */
  build(orderId: string, status: Status, eventId: string): Notification;
  /** The provider's signature headers for the exact bytes. */
  sign(body: string | Buffer, secret: string, timestampSeconds: number): Record<string, string>;
  hasTimestamp: boolean;
}

const stripeType = { succeeded: "payment_intent.succeeded", failed: "payment_intent.payment_failed", refunded: "charge.refunded" };
const nmiType = { succeeded: "transaction.sale.success", failed: "transaction.sale.failure", refunded: "transaction.refund.success" };
const shopifyFinancial = { succeeded: "paid", failed: "voided", refunded: "refunded" };

const standardCase = (provider: Provider): ProviderCase => ({
  provider,
  build: (orderId, status, eventId) => ({ body: JSON.stringify({ id: eventId, type: `payment.${status}`, data: { orderId, transactionId: "txn_crm_1" } }) }),
  // The Standard Webhooks reference library: `whsec_` secrets are base64 keys, others their UTF-8 bytes.
  sign: (body, secret, ts) => {
    const id = unique("msg");
    const webhook = secret.startsWith("whsec_") ? new Webhook(secret) : new Webhook(Buffer.from(secret, "utf8"), { format: "raw" });
    return { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": webhook.sign(id, new Date(ts * 1000), body.toString()) };
  },
  hasTimestamp: true,
});

const vaultCase = (provider: Provider): ProviderCase => ({
  provider,
  build: (orderId, status, eventId) => ({
    body: JSON.stringify({ event_id: eventId, event_type: nmiType[status], event_body: { merchant: { id: "1", name: "Shop" }, transaction_id: "9000001", order_id: orderId, action: { amount: "10.00" } } }),
  }),
  sign: (body, secret) => {
    const nonce = unique("nonce");
    return { "webhook-signature": `t=${nonce},s=${hmac(secret, Buffer.concat([Buffer.from(`${nonce}.`), Buffer.from(body)])).digest("hex")}` };
  },
  hasTimestamp: false,
});

const CASES: ProviderCase[] = [
  {
    provider: "intent_gateway",
    build: (orderId, status, eventId) => {
      const object =
        status === "refunded"
          ? { id: "ch_1", object: "charge", payment_intent: "pi_1", metadata: { orderId } }
          : { id: "pi_1", object: "payment_intent", metadata: { orderId }, ...(status === "failed" ? { last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" } } : {}) };
      return { body: JSON.stringify({ id: eventId, object: "event", type: stripeType[status], data: { object } }, null, 2) };
    },
    sign: (body, secret, ts) => ({ "stripe-signature": `t=${ts},v1=${hmac(secret, Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)])).digest("hex")},v0=ignored` }),
    hasTimestamp: true,
  },
  vaultCase("vault_gateway_a"),
  {
    provider: "hosted_store",
    build: (orderId, status, eventId) => ({
      body: JSON.stringify({ id: 4500012, financial_status: shopifyFinancial[status], note_attributes: [{ name: "orderId", value: orderId }], tags: `order:${orderId}` }),
      headers: { "x-shopify-webhook-id": eventId, "x-shopify-topic": "orders/updated", "x-shopify-shop-domain": "shop.example" },
    }),
    sign: (body, secret) => ({ "x-shopify-hmac-sha256": hmac(secret, body).digest("base64") }),
    hasTimestamp: false,
  },
  standardCase("order_crm_a"),
  standardCase("order_crm_b"),
  standardCase("cart_gateway"),
  // Last, so the indices the tests below use stay put.
  vaultCase("vault_gateway_b"),
];

const SECRETS: Record<Provider, string> = {
  intent_gateway: "whsec_stripe_style_signing_secret_0001",
  vault_gateway_a: "nmi-signing-key-0123456789",
  vault_gateway_b: "nmi-b-signing-key-9876543210",
  hosted_store: "shpss_shopify_app_secret_0123456789",
  order_crm_a: "whsec_" + Buffer.alloc(24, 1).toString("base64"),
  order_crm_b: "crm-b-plain-secret-0123456789",
  cart_gateway: "whsec_" + Buffer.alloc(24, 3).toString("base64"),
};

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const now = () => Math.floor(t.clock.now() / 1000);

/** livemode false: the brand's sandbox settings (test credentials, issue 33). */
async function setWebhookSecret(app: TestApp, brandId: string, provider: SettingsProvider, secret: string | null, livemode = true) {
  const stored = splitForStorage(provider, secret ? { webhookSecret: secret } : {}, app.deps.config.encryptionKey);
  await upsertProviderSettings(app.deps.database.db, { brandId, provider, enabled: true, ...stored, updatedAt: new Date(app.clock.now()) }, livemode);
}

/** A brand with the provider's webhookSecret and a checkout completed (demo payment) in it. */
async function paidOrderOf(c: ProviderCase, secret = SECRETS[c.provider]) {
  const { brandId } = await createBrand(t);
  await setWebhookSecret(t, brandId, c.provider, secret);
  const { orderId } = await completeCheckoutViaApi(t, { provider: c.provider, claims: { brandId } });
  return { brandId, orderId };
}

function send(app: TestApp, provider: string, n: Notification, signature: Record<string, string>, query = "") {
  return app.app.inject({
    method: "POST",
    url: `/api/webhooks/${provider}${query}`,
    payload: Buffer.from(n.body),
    headers: { "content-type": "application/json", ...n.headers, ...signature },
  });
}

async function statusOf(orderId: string, brandId: string) {
  const [checkout] = await db().select().from(checkouts).where(eq(checkouts.orderId, orderId));
  const [order] = await db().select().from(orders).where(eq(orders.checkoutId, checkout.id));
  expect(checkout.brandId).toBe(brandId);
  return { checkout: checkout.paymentStatus, order: order.paymentStatus, checkoutId: checkout.id };
}

const storedEvent = async (provider: string, eventId: string) =>
  db().select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.providerEventId, eventId)).then((rows) => rows.filter((r) => r.provider === provider));

describe.each(CASES)("$provider signature scheme", (c) => {
  it("applies a correctly signed refund to the checkout and its order; the same event again changes nothing", async () => {
    const { brandId, orderId } = await paidOrderOf(c);
    // Completion leaves payment_status empty: only provider notifications set it.
    expect((await statusOf(orderId, brandId)).checkout).toBeNull();
    const eventId = unique("evt");
    const n = c.build(orderId, "refunded", eventId);
    const res = await send(t, c.provider, n, c.sign(n.body, SECRETS[c.provider], now()));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });
    const after = await statusOf(orderId, brandId);
    expect(after).toMatchObject({ checkout: "refunded", order: "refunded" });
    const [row] = await storedEvent(c.provider, eventId);
    expect(row).toMatchObject({ type: "payment.refunded", outcome: "applied", brandId, orderId });

    // The provider retries (freshly signed where the scheme signs a time): acknowledged, not applied again.
    await db().update(checkouts).set({ paymentStatus: "succeeded" }).where(eq(checkouts.id, after.checkoutId));
    t.clock.advance(60_000);
    const again = await send(t, c.provider, n, c.sign(n.body, SECRETS[c.provider], now()));
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again)).toEqual({ received: true, duplicate: true, outcome: "duplicate" });
    expect((await statusOf(orderId, brandId)).checkout).toBe("succeeded");
    expect(await storedEvent(c.provider, eventId)).toHaveLength(1);
  });

  it("applies payment failed and succeeded notifications", async () => {
    const { brandId, orderId } = await paidOrderOf(c);
    for (const status of ["failed", "succeeded"] as const) {
      const n = c.build(orderId, status, unique("evt"));
      const res = await send(t, c.provider, n, c.sign(n.body, SECRETS[c.provider], now()));
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).outcome).toBe("applied");
      expect(await statusOf(orderId, brandId)).toMatchObject({ checkout: status, order: status });
    }
  });

  it("answers 400 for a wrong secret, a tampered body or no signature, changing and storing nothing", async () => {
    const { brandId, orderId } = await paidOrderOf(c);
    const eventId = unique("evt");
    const n = c.build(orderId, "refunded", eventId);
    const good = c.sign(n.body, SECRETS[c.provider], now());
    const tampered = { ...n, body: Buffer.concat([Buffer.from(n.body), Buffer.from(" ")]) };
    const cases: [Notification, Record<string, string>, string][] = [
      [n, c.sign(n.body, SECRETS.cart_gateway === SECRETS[c.provider] ? SECRETS.order_crm_a : SECRETS.cart_gateway, now()), "Invalid webhook signature"],
      [tampered, good, "Invalid webhook signature"],
      // No provider signature: the brand has a webhookSecret, so the demo scheme is not accepted either.
      [n, {}, "Missing webhook signature"],
    ];
    for (const [notification, headers, error] of cases) {
      const res = await send(t, c.provider, notification, headers);
      expect(res.statusCode, error).toBe(400);
      expect(json(res).error).toBe(error);
    }
    expect(await statusOf(orderId, brandId)).toMatchObject({ checkout: null, order: null });
    expect(await storedEvent(c.provider, eventId)).toHaveLength(0);
  });

  it("refuses a demo-signed notification for a brand that has a webhookSecret", async () => {
    const { orderId } = await paidOrderOf(c);
    const body = JSON.stringify({ id: unique("evt"), type: "payment.refunded", data: { orderId } });
    const ts = now();
    const res = await send(t, c.provider, { body }, { "x-demo-timestamp": String(ts), "x-demo-signature": `v1=${hmac(TEST_TOKEN_SECRET, `${ts}.${body}`).digest("hex")}` });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Missing webhook signature");
  });

  it.runIf(c.hasTimestamp)("refuses a signature older or newer than 5 minutes (replay), even with the right secret", async () => {
    const { brandId, orderId } = await paidOrderOf(c);
    for (const ts of [now() - 301, now() + 301]) {
      const n = c.build(orderId, "refunded", unique("evt"));
      const res = await send(t, c.provider, n, c.sign(n.body, SECRETS[c.provider], ts));
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe("Webhook timestamp outside the 5-minute tolerance");
    }
    // Captured 4 minutes after signing and replayed 2 minutes later, under a new event id it cannot carry: refused.
    const n = c.build(orderId, "refunded", unique("evt"));
    const captured = c.sign(n.body, SECRETS[c.provider], now() - 240);
    t.clock.advance(120_000);
    const replay = await send(t, c.provider, n, captured);
    expect(replay.statusCode).toBe(400);
    expect((await statusOf(orderId, brandId)).checkout).toBeNull();
  });

  it.runIf(!c.hasTimestamp)("has no signed time: a replay days later is stopped by the event id (200 duplicate, nothing changed)", async () => {
    const { brandId, orderId } = await paidOrderOf(c);
    const n = c.build(orderId, "refunded", unique("evt"));
    const captured = c.sign(n.body, SECRETS[c.provider], now());
    expect((await send(t, c.provider, n, captured)).statusCode).toBe(200);
    const { checkoutId } = await statusOf(orderId, brandId);
    await db().update(checkouts).set({ paymentStatus: "succeeded" }).where(eq(checkouts.id, checkoutId));
    t.clock.advance(8 * 24 * 3600_000);
    const replay = await send(t, c.provider, n, captured);
    expect(json(replay)).toEqual({ received: true, duplicate: true, outcome: "duplicate" });
    expect((await statusOf(orderId, brandId)).checkout).toBe("succeeded");
  });
});

describe("sandbox secret", () => {
  it.each([CASES[0], CASES[1], CASES[4]])("$provider: a notification signed with the sandbox's secret changes test checkouts only", async (c) => {
    const { brandId } = await createBrand(t);
    const sandboxSecret = SECRETS[c.provider];
    await setWebhookSecret(t, brandId, c.provider, sandboxSecret, false);
    const test = await completeCheckoutViaApi(t, { provider: c.provider, claims: { brandId } });
    const live = await completeCheckoutViaApi(t, { provider: c.provider, claims: { brandId } });
    // The second order stands for a live one (a live key's checkout needs real credentials to be made).
    await db().update(checkouts).set({ livemode: true }).where(eq(checkouts.orderId, live.orderId));
    expect((await db().select({ livemode: checkouts.livemode }).from(checkouts).where(eq(checkouts.orderId, test.orderId)))[0]?.livemode).toBe(false);

    const onTest = c.build(test.orderId, "refunded", unique("evt"));
    expect(json(await send(t, c.provider, onTest, c.sign(onTest.body, sandboxSecret, now())))).toEqual({ received: true, duplicate: false, outcome: "applied" });
    expect(await statusOf(test.orderId, brandId)).toMatchObject({ checkout: "refunded", order: "refunded" });

    const onLive = c.build(live.orderId, "refunded", unique("evt"));
    expect(json(await send(t, c.provider, onLive, c.sign(onLive.body, sandboxSecret, now())))).toEqual({ received: true, duplicate: false, outcome: "unmatched" });
    expect(await statusOf(live.orderId, brandId)).toMatchObject({ checkout: null, order: null });
  });
});

describe("which brand's secret", () => {
  it("verifies with the secret of the brand whose checkout has the order id; the same order id in another brand is untouched", async () => {
    const c = CASES[0];
    const orderId = unique("ord-shared");
    const a = await createBrand(t);
    const b = await createBrand(t);
    await setWebhookSecret(t, a.brandId, "intent_gateway", "whsec_brand_a_secret_0000000001");
    await setWebhookSecret(t, b.brandId, "intent_gateway", "whsec_brand_b_secret_0000000002");
    await completeCheckoutViaApi(t, { provider: "intent_gateway", claims: { brandId: a.brandId, orderId } });
    await completeCheckoutViaApi(t, { provider: "intent_gateway", claims: { brandId: b.brandId, orderId } });

    const n = c.build(orderId, "refunded", unique("evt"));
    const res = await send(t, "intent_gateway", n, c.sign(n.body, "whsec_brand_b_secret_0000000002", now()));
    expect(json(res)).toMatchObject({ outcome: "applied" });
    const rows = await db().select({ brandId: checkouts.brandId, paymentStatus: checkouts.paymentStatus }).from(checkouts).where(eq(checkouts.orderId, orderId));
    expect(Object.fromEntries(rows.map((r) => [r.brandId, r.paymentStatus]))).toEqual({ [a.brandId]: null, [b.brandId]: "refunded" });
  });

  it("takes the brand from ?brand= for events without our order id: stored as ignored, nothing changed", async () => {
    const c = CASES[0];
    const { brandId } = await createBrand(t);
    await setWebhookSecret(t, brandId, "intent_gateway", SECRETS.intent_gateway);
    const eventId = unique("evt");
    const body = JSON.stringify({ id: eventId, object: "event", type: "customer.created", data: { object: { id: "cus_1", object: "customer" } } });
    const res = await send(t, "intent_gateway", { body }, c.sign(body, SECRETS.intent_gateway, now()), `?brand=${brandId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "ignored" });
    expect((await storedEvent("intent_gateway", eventId))[0]).toMatchObject({ type: "customer.created", outcome: "ignored", brandId, orderId: null });
    // Without ?brand= the default brand's secret would be asked for: it has none.
    const other = JSON.stringify({ id: unique("evt"), object: "event", type: "customer.created", data: { object: { id: "cus_2" } } });
    const refused = await send(t, "intent_gateway", { body: other }, c.sign(other, SECRETS.intent_gateway, now()));
    expect(refused.statusCode).toBe(400);
    expect(json(refused).error).toBe("No webhook signing secret configured for intent_gateway");
  });

  it("keeps the demo scheme for a brand whose settings have no webhookSecret (test mode)", async () => {
    const { brandId } = await createBrand(t);
    await setWebhookSecret(t, brandId, "vault_gateway_a", null);
    const { orderId } = await completeCheckoutViaApi(t, { provider: "vault_gateway_a", claims: { brandId } });
    const body = JSON.stringify({ id: unique("evt"), type: "payment.failed", data: { orderId } });
    const ts = now();
    const res = await send(t, "vault_gateway_a", { body }, { "x-demo-timestamp": String(ts), "x-demo-signature": `v1=${hmac(TEST_TOKEN_SECRET, `${ts}.${body}`).digest("hex")}` });
    expect(json(res)).toMatchObject({ outcome: "applied" });
    expect((await statusOf(orderId, brandId)).checkout).toBe("failed");
  });
});

describe("raw bytes and malformed input", () => {
  it("verifies the exact bytes: pretty-printed JSON with non-ASCII text and a byte that is not UTF-8", async () => {
    const c = CASES[2]; // hosted_store: an HMAC over the whole body and nothing else
    const { brandId, orderId } = await paidOrderOf(c);
    const eventId = unique("evt");
    const text = JSON.stringify({ id: 1, financial_status: "refunded", note: "Crème brûlée X", note_attributes: [{ name: "orderId", value: orderId }] }, null, 4);
    const body = Buffer.from(text, "utf8");
    body[body.indexOf("X")] = 0xff; // not valid UTF-8: a parser that decodes and re-encodes would change the bytes
    const res = await send(t, "hosted_store", { body, headers: { "x-shopify-webhook-id": eventId, "x-shopify-topic": "orders/updated" } }, c.sign(body, SECRETS.hosted_store, now()));
    expect(res.statusCode, res.body).toBe(200);
    expect((await statusOf(orderId, brandId)).checkout).toBe("refunded");
  });

  it("answers 400, never 500, for unreadable signature headers, malformed JSON and unexpected shapes", async () => {
    const { orderId } = await paidOrderOf(CASES[0]);
    const body = CASES[0].build(orderId, "succeeded", unique("evt")).body as string;
    const cases: [Provider, string | Buffer, Record<string, string>, string][] = [
      ["intent_gateway", body, { "stripe-signature": "v1=abc" }, "Invalid webhook timestamp"],
      ["intent_gateway", body, { "stripe-signature": "t=soon,v1=abc" }, "Invalid webhook timestamp"],
      ["intent_gateway", "{not json", { "stripe-signature": `t=${now()},v1=abc` }, "Malformed JSON body"],
      ["intent_gateway", JSON.stringify({ id: "evt_x", type: "charge.refunded" }), { "stripe-signature": `t=${now()},v1=abc` }, "Invalid notification: "],
      ["vault_gateway_a", JSON.stringify({ event_id: "e", event_type: "transaction.sale.success", event_body: { order_id: orderId } }), { "webhook-signature": "garbage" }, "No webhook signing secret configured for vault_gateway_a"],
      ["hosted_store", "{}", { "x-shopify-hmac-sha256": "abc" }, "Invalid notification: missing X-Shopify-Webhook-Id"],
      ["order_crm_a", JSON.stringify({ id: "e", type: "payment.succeeded", data: { orderId } }), { "webhook-signature": "v1,abc" }, "No webhook signing secret configured for order_crm_a"],
    ];
    for (const [provider, payload, headers, error] of cases) {
      const res = await send(t, provider, { body: payload }, headers);
      expect(res.statusCode, `${provider} ${error}`).toBe(400);
      expect(json(res).error.startsWith(error), json(res).error).toBe(true);
    }
  });

  it("answers 400 for a malformed NMI or Standard Webhooks header when the brand has a secret", async () => {
    const nmi = await paidOrderOf(CASES[1]);
    const nmiBody = CASES[1].build(nmi.orderId, "succeeded", unique("evt")).body;
    const bad = await send(t, "vault_gateway_a", { body: nmiBody }, { "webhook-signature": "garbage" });
    expect([bad.statusCode, json(bad).error]).toEqual([400, "Invalid webhook signature"]);
    const crm = await paidOrderOf(CASES[3]);
    const crmBody = CASES[3].build(crm.orderId, "succeeded", unique("evt")).body;
    const noId = await send(t, "order_crm_a", { body: crmBody }, { "webhook-signature": "v1,abc", "webhook-timestamp": String(now()) });
    expect([noId.statusCode, json(noId).error]).toEqual([400, "Missing webhook signature"]);
  });
});

describe("live mode", () => {
  it("verifies with the brand's webhookSecret; without one, or with the demo scheme, 400", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const c = CASES[5]; // cart_gateway, Standard Webhooks
      const ts = Math.floor(live.clock.now() / 1000);
      const body = JSON.stringify({ id: unique("evt"), type: "payment.succeeded", data: { orderId: "ord-live-1" } });
      const noSecret = await send(live, "cart_gateway", { body }, c.sign(body, SECRETS.cart_gateway, ts));
      expect([noSecret.statusCode, json(noSecret).error]).toEqual([400, "No webhook signing secret configured for cart_gateway"]);

      const { brandId } = await createBrand(live);
      await setWebhookSecret(live, brandId, "cart_gateway", SECRETS.cart_gateway);
      const res = await send(live, "cart_gateway", { body }, c.sign(body, SECRETS.cart_gateway, ts), `?brand=${brandId}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).outcome).toBe("unmatched");
      const [row] = await live.deps.database.db.select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.brandId, brandId));
      expect(row).toMatchObject({ provider: "cart_gateway", outcome: "unmatched", orderId: "ord-live-1" });

      const demo = await send(live, "cart_gateway", { body }, { "x-demo-timestamp": String(ts), "x-demo-signature": `v1=${hmac(TEST_TOKEN_SECRET, `${ts}.${body}`).digest("hex")}` }, `?brand=${brandId}`);
      expect([demo.statusCode, json(demo).error]).toEqual([400, "Missing webhook signature"]);
      // The secret is stored sealed, never in clear.
      const [settings] = await live.deps.database.db.select().from(providerSettings).where(eq(providerSettings.brandId, brandId));
      expect(JSON.stringify(settings)).not.toContain(SECRETS.cart_gateway);
    } finally {
      await live.close();
    }
  });
});

// Issue 31 item 11: deduplication was keyed by (provider, event id) across brands, so a brand that knew
// another's provider event id in advance could send it first, under its own secret, and the real
// notification was then answered `duplicate` and never applied. Now the key holds the verified brand.
const OTHER_SECRETS: Record<Provider, string> = {
  intent_gateway: "whsec_another_brand_signing_secret_9999",
  vault_gateway_a: "nmi-another-brand-key-000000",
  vault_gateway_b: "nmi-b-another-brand-key-000000",
  hosted_store: "shpss_another_brand_secret_000000",
  order_crm_a: "whsec_" + Buffer.alloc(24, 7).toString("base64"),
  order_crm_b: "crm-b-another-brand-secret-000000",
  cart_gateway: "whsec_" + Buffer.alloc(24, 8).toString("base64"),
};

describe.each(CASES)("$provider event ids belong to their brand", (c) => {
  it("another brand's notification carrying this brand's event id does not suppress it", async () => {
    const victim = await paidOrderOf(c);
    const other = await paidOrderOf(c, OTHER_SECRETS[c.provider]);
    const eventId = unique("evt");
    // First, the other brand sends the id it learnt, signed with its own secret (even naming the victim's order).
    const forged = c.build(victim.orderId, "refunded", eventId);
    const first = await send(t, c.provider, forged, c.sign(forged.body, OTHER_SECRETS[c.provider], now()), `?brand=${other.brandId}`);
    expect(json(first)).toEqual({ received: true, duplicate: false, outcome: "unmatched" });
    expect((await statusOf(victim.orderId, victim.brandId)).checkout).toBeNull();

    // The victim's provider then notifies with that id: applied.
    const real = c.build(victim.orderId, "refunded", eventId);
    const res = await send(t, c.provider, real, c.sign(real.body, SECRETS[c.provider], now()));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });
    expect(await statusOf(victim.orderId, victim.brandId)).toMatchObject({ checkout: "refunded", order: "refunded" });
    expect((await storedEvent(c.provider, eventId)).map((r) => r.brandId).sort()).toEqual([other.brandId, victim.brandId].sort());

    // Within one brand an event id is still seen once.
    t.clock.advance(1_000);
    const repeat = await send(t, c.provider, real, c.sign(real.body, SECRETS[c.provider], now()));
    expect(json(repeat)).toEqual({ received: true, duplicate: true, outcome: "duplicate" });
  });
});
