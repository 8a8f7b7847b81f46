import type { ServerResponse } from "node:http";
import { startHttpFake, takeFailure, type FakeFailure } from "../../lib/testing/fake-http.js";

/**
 * A fake PaymentIntents-style gateway at the network boundary, for tests: a real HTTP server on
 * 127.0.0.1. `pay` stands in for the gateway's client SDK confirming an intent in the buyer's
 * browser. Payment method `pm_card_declineSaved` pays once and declines off-session charges;
 * `pm_card_chargeDeclined` declines at once; `pm_card_threeDSecure` leaves it `requires_action` with
 * the bank's page as `next_action.redirect_to_url` (a later `pay` with another method stands for the approval); refunds of an intent paid with `pm_card_refundFail` fail.
 * `failNext` makes the next call answer 500 or garbage. `dispute` opens a dispute of a paid intent as the
 * card network would (the test then notifies us of it); merchants answer it with `POST /v1/disputes/<id>`
 * (evidence, `submit`) and `POST /v1/disputes/<id>/close` (accept).
 */
export interface FakeIntentGateway {
  baseUrl: string;
  secretKey: string;
  requests: { method: string; path: string; form: Record<string, string>; headers: Record<string, string | string[] | undefined> }[];
  intents: Map<string, Record<string, unknown>>;
  disputes: Map<string, Record<string, any>>;
  failNext: FakeFailure;
  pay(intentId: string, paymentMethod: string): void;
  dispute(intentId: string, over?: Record<string, unknown>): Record<string, any>;
  close(): Promise<void>;
}

const send = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};

export async function startFakeIntentGateway(secretKey = "sk_test_fake_secret_key_4242"): Promise<FakeIntentGateway> {
  let counter = 0;
  const next = (prefix: string) => `${prefix}_fake${++counter}`;
  const idempotent = new Map<string, unknown>();
  const fake: FakeIntentGateway = {
    baseUrl: "",
    secretKey,
    requests: [],
    intents: new Map(),
    disputes: new Map(),
    failNext: null,
    pay(intentId, paymentMethod) {
      const intent = fake.intents.get(intentId)!;
      if (paymentMethod === "pm_card_threeDSecure") {
        // The bank wants 3-D Secure: the SDK's confirmation left the intent waiting on the bank's page.
        Object.assign(intent, { status: "requires_action", payment_method: paymentMethod, next_action: { type: "redirect_to_url", redirect_to_url: { url: `${fake.baseUrl}/3ds/${intentId}`, return_url: "https://shop.example/checkout" } } });
      } else if (paymentMethod === "pm_card_chargeDeclined") {
        Object.assign(intent, { status: "requires_payment_method", last_payment_error: { code: "card_declined", decline_code: "generic_decline" } });
      } else {
        Object.assign(intent, { status: "succeeded", payment_method: paymentMethod, last_payment_error: null, next_action: null });
      }
    },
    dispute(intentId, over = {}) {
      const intent = fake.intents.get(intentId)!;
      const id = next("dp");
      const dispute = {
        id,
        object: "dispute",
        amount: intent.amount,
        currency: intent.currency,
        charge: next("ch"),
        payment_intent: intentId,
        reason: "fraudulent",
        status: "needs_response",
        evidence: { uncategorized_text: null },
        evidence_details: { due_by: 1_900_000_000, has_evidence: false, submission_count: 0 },
        metadata: {},
        ...over,
      };
      fake.disputes.set(id, dispute);
      return dispute;
    },
    close: async () => {},
  };
  const isClosed = (dispute: Record<string, any>) => ["won", "lost", "warning_closed", "charge_refunded"].includes(dispute.status);

  const server = await startHttpFake((request, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    const path = request.path;
    fake.requests.push({ method: request.method ?? "", path, form, headers: request.headers });
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return send(response, 500, { error: { type: "api_error" } });
      response.writeHead(200, { "content-type": "text/html" });
      return response.end("<html>gateway maintenance</html>");
    }
    if (request.headers.authorization !== `Bearer ${secretKey}`) return send(response, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });

    const key = request.headers["idempotency-key"];
    if (typeof key === "string" && idempotent.has(key)) return send(response, 200, idempotent.get(key));

    if (request.method === "POST" && path === "/v1/payment_intents") {
      const metadata = Object.fromEntries(Object.entries(form).filter(([k]) => k.startsWith("metadata[")).map(([k, v]) => [k.slice(9, -1), v]));
      const id = next("pi");
      const intent: Record<string, unknown> = {
        id,
        object: "payment_intent",
        client_secret: `${id}_secret_${counter}`,
        amount: Number(form.amount),
        currency: form.currency,
        status: "requires_payment_method",
        customer: form.customer ?? (form.setup_future_usage ? next("cus") : null),
        payment_method: form.payment_method ?? null,
        metadata,
        last_payment_error: null,
      };
      if (form.confirm === "true") {
        const saved = [...fake.intents.values()].find((i) => i.payment_method === form.payment_method && i.customer === form.customer && i.status === "succeeded");
        if (!saved) return send(response, 400, { error: { type: "invalid_request_error", code: "resource_missing" } });
        if (form.payment_method === "pm_card_declineSaved") {
          Object.assign(intent, { status: "requires_payment_method", last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" } });
          fake.intents.set(id, intent);
          return send(response, 402, { error: { type: "card_error", code: "card_declined", decline_code: "insufficient_funds", payment_intent: intent } });
        }
        intent.status = "succeeded";
      }
      fake.intents.set(id, intent);
      if (typeof key === "string") idempotent.set(key, intent);
      return send(response, 200, intent);
    }
    if (request.method === "POST" && path === "/v1/refunds") {
      const intent = fake.intents.get(form.payment_intent ?? "");
      if (!intent) return send(response, 404, { error: { type: "invalid_request_error", code: "resource_missing" } });
      if (intent.status !== "succeeded") return send(response, 400, { error: { type: "invalid_request_error", code: "charge_not_refundable" } });
      const left = (intent.amount as number) - ((intent.amount_refunded as number | undefined) ?? 0);
      const amount = form.amount ? Number(form.amount) : left;
      if (left <= 0) return send(response, 400, { error: { type: "invalid_request_error", code: "charge_already_refunded" } });
      if (amount > left) return send(response, 400, { error: { type: "invalid_request_error", code: "amount_too_large" } });
      const fails = intent.payment_method === "pm_card_refundFail";
      const refund = { id: next("re"), object: "refund", amount, payment_intent: intent.id, reason: form.reason ?? null, status: fails ? "failed" : "succeeded", failure_reason: fails ? "declined" : null };
      if (!fails) intent.amount_refunded = ((intent.amount_refunded as number | undefined) ?? 0) + amount;
      if (typeof key === "string") idempotent.set(key, refund);
      return send(response, 200, refund);
    }
    const disputeCall = /^\/v1\/disputes\/([A-Za-z0-9_]+)(\/close)?$/.exec(path);
    if (request.method === "POST" && disputeCall) {
      const dispute = fake.disputes.get(disputeCall[1]!);
      if (!dispute) return send(response, 404, { error: { type: "invalid_request_error", code: "resource_missing" } });
      if (isClosed(dispute)) return send(response, 400, { error: { type: "invalid_request_error", code: "dispute_already_closed" } });
      if (disputeCall[2]) dispute.status = "lost";
      else {
        if (form["evidence[uncategorized_text]"] !== undefined) dispute.evidence.uncategorized_text = form["evidence[uncategorized_text]"];
        if (form.submit === "true") Object.assign(dispute, { status: "under_review", evidence_details: { ...dispute.evidence_details, has_evidence: true, submission_count: dispute.evidence_details.submission_count + 1 } });
      }
      if (typeof key === "string") idempotent.set(key, dispute);
      return send(response, 200, dispute);
    }
    const retrieve = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(path);
    if (request.method === "GET" && retrieve) {
      const intent = fake.intents.get(retrieve[1]!);
      return intent ? send(response, 200, intent) : send(response, 404, { error: { type: "invalid_request_error", code: "resource_missing" } });
    }
    send(response, 404, { error: { type: "invalid_request_error" } });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
