import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";
import type { Registered } from "./admin.js";
import type { TestApp } from "./app.js";
import { call } from "./identity.js";

/** Each dispute scheme's webhookSecret in the dispute tests. */
export const DISPUTE_SECRETS = {
  intent_gateway: "whsec_dispute_tests_signing_secret_01",
  vault_gateway_a: "nmi-a-dispute-tests-key-0123456789",
  vault_gateway_b: "nmi-b-dispute-tests-key-0123456789",
  hosted_store: "shpss_dispute_tests_app_secret_0123",
  order_crm_a: "whsec_" + Buffer.alloc(24, 7).toString("base64"),
  order_crm_b: "crm-b-dispute-tests-plain-secret-01",
  cart_gateway: "whsec_" + Buffer.alloc(24, 9).toString("base64"),
} as const;

/** Stores the brand's webhookSecret of each dispute scheme through the settings API (with any other settings given). */
export async function setDisputeSecrets(t: TestApp, owner: Registered, extra: Partial<Record<keyof typeof DISPUTE_SECRETS, Record<string, string>>> = {}) {
  for (const [provider, webhookSecret] of Object.entries(DISPUTE_SECRETS)) {
    const res = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider, settings: { webhookSecret, ...extra[provider as keyof typeof DISPUTE_SECRETS] } } });
    expect(res.statusCode, res.body).toBe(200);
  }
}

const hex = (key: string, data: string) => createHmac("sha256", key).update(data).digest("hex");
let nonces = 0;

/** A Stripe event carrying a Dispute object, signed as Stripe signs (`Stripe-Signature: t=…,v1=…`), posted to us. */
export function notifyIntentGateway(t: TestApp, event: { id: string; type: string; dispute: Record<string, unknown> }, query = "", secret: string = DISPUTE_SECRETS.intent_gateway) {
  const body = JSON.stringify({ id: event.id, object: "event", type: event.type, data: { object: { object: "dispute", ...event.dispute } } });
  const ts = Math.floor(t.clock.now() / 1000);
  return t.app.inject({
    method: "POST",
    url: `/api/webhooks/intent_gateway${query}`,
    payload: body,
    headers: { "content-type": "application/json", "stripe-signature": `t=${ts},v1=${hex(secret, `${ts}.${body}`)}` },
  });
}

/** An NMI `chargeback.batch.complete` notification, signed as NMI signs (`Webhook-Signature: t=<nonce>,s=…`), posted to us. */
export function notifyChargebacks(t: TestApp, provider: "vault_gateway_a" | "vault_gateway_b", eventId: string, chargebacks: Record<string, unknown>[]) {
  const body = JSON.stringify({ event_id: eventId, event_type: "chargeback.batch.complete", event_body: { merchant: { id: "1", name: "Shop" }, count: chargebacks.length, chargebacks } });
  const nonce = `nonce-${++nonces}`;
  return t.app.inject({
    method: "POST",
    url: `/api/webhooks/${provider}`,
    payload: body,
    headers: { "content-type": "application/json", "webhook-signature": `t=${nonce},s=${hex(DISPUTE_SECRETS[provider], `${nonce}.${body}`)}` },
  });
}

/** A Shopify `disputes/create` or `disputes/update` webhook carrying a Dispute, signed as Shopify signs (`X-Shopify-Hmac-Sha256`: base64 HMAC of the body), posted to us. */
export function notifyHostedStore(t: TestApp, event: { id: string; topic: string; dispute: Record<string, unknown> }) {
  const body = JSON.stringify(event.dispute);
  return t.app.inject({
    method: "POST",
    url: "/api/webhooks/hosted_store",
    payload: body,
    headers: {
      "content-type": "application/json",
      "x-shopify-topic": event.topic,
      "x-shopify-webhook-id": event.id,
      "x-shopify-hmac-sha256": createHmac("sha256", DISPUTE_SECRETS.hosted_store).update(body).digest("base64"),
    },
  });
}

let messages = 0;

/**
 * A Standard Webhooks notification (order_crm_a, order_crm_b, cart_gateway), signed with the
 * `standardwebhooks` reference library as those providers sign (`whsec_` secrets are base64 keys,
 * others their UTF-8 bytes), posted to us.
 */
export function notifyStandardWebhooks(t: TestApp, provider: "order_crm_a" | "order_crm_b" | "cart_gateway", event: Record<string, unknown>, secret: string = DISPUTE_SECRETS[provider]) {
  const body = JSON.stringify(event);
  const id = `msg_${++messages}`;
  const at = new Date(t.clock.now());
  const webhook = secret.startsWith("whsec_") ? new Webhook(secret) : new Webhook(Buffer.from(secret, "utf8"), { format: "raw" });
  return t.app.inject({
    method: "POST",
    url: `/api/webhooks/${provider}`,
    payload: body,
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": webhook.sign(id, at, body) },
  });
}
