// Real answers match the API description (issue 33 item 5): every answer of a merchant's whole flow
// (key, checkout, pay with each provider, complete, upsell, refund), of the back office reading what
// it made, and of one sample call of every documented operation (with and without its credential)
// has a documented status, the documented media type and a body valid against the documented
// schema (Ajv). Operations are taken from the document, so routes added later are driven too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { registerOwner, type Registered } from "../support/admin.js";
import { ORIGIN } from "../support/identity.js";
import { bearer, createApiKey, withKey } from "../support/merchant.js";
import { completeCheckoutViaApi } from "../support/completed-checkout.js";
import { AMOUNT, PAY_BY_PROVIDER } from "../support/provider-payments.js";
import { post } from "../support/checkout.js";
import { checkAnswers, recordAnswers, type Answer } from "../support/openapi.js";
import { operationsOf, sampleOf, type Operation } from "../support/openapi-inputs.js";
import { SESSION_COOKIE } from "../../src/identity/policy.js";
import type { PaymentProviderType } from "../../src/providers/types.js";

let t: TestApp;
let doc: Record<string, any>;
let owner: Registered;
let key: string;
const answers: Answer[] = [];

beforeAll(async () => {
  t = await buildTestApp({ observe: recordAnswers(answers) });
  owner = await registerOwner(t, "Documented");
  key = (await createApiKey(t, owner.session)).secret;
  doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
});
afterAll(() => t?.close());

const admin = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, body?: unknown) =>
  t.app.inject({ method, url, cookies: { [SESSION_COOKIE]: owner.session }, headers: { origin: ORIGIN }, ...(body === undefined ? {} : { payload: body as object }) });

describe("answers match the API description", () => {
  it("a merchant's whole flow: key, checkout, pay with every provider, complete, upsell, refund", async () => {
    const created = await withKey(t, "POST", "/api/v1/checkouts", key, { orderId: `doc-${t.clock.now()}`, amount: AMOUNT, currency: "USD", productName: "Plan" });
    expect(created.statusCode, created.body).toBe(201);
    expect((await withKey(t, "GET", `/api/v1/checkouts/${json(created).id}`, key)).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: new URL(json(created).shortUrl).pathname })).statusCode).toBe(302);

    const orders = [];
    for (const provider of Object.keys(PAY_BY_PROVIDER) as PaymentProviderType[]) orders.push(await completeCheckoutViaApi(t, { provider, claims: { brandId: owner.brandId } }));
    const order = orders[0]!;
    const token = await withKey(t, "POST", "/api/v1/payment-tokens", key, { provider: order.provider, transactionId: order.transactionId });
    expect(token.statusCode, token.body).toBe(200);

    const sessionBody = (o: typeof order) => ({
      orderId: `${o.orderId}-up`,
      originalOrderId: o.orderId,
      customerEmail: "ada@example.com",
      provider: o.provider,
      paymentMethodToken: o.paymentMethodToken,
      offers: [
        { id: "o1", name: "Extra", price: 1500 },
        { id: "o2", name: "More", price: 900 },
      ],
    });
    const session = await withKey(t, "POST", "/api/v1/upsell/sessions", key, sessionBody(order));
    expect(session.statusCode, session.body).toBe(200);
    const sessionId = json(session).sessionId as string;
    expect((await t.app.inject({ method: "GET", url: `/api/upsell/session/${sessionId}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: `/api/upsell/session/${sessionId}/offer` })).statusCode).toBe(200);
    expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "o1" })).statusCode).toBe(200);
    expect((await post(t, "/api/upsell/decline", { sessionId, offerId: "o2" })).statusCode).toBe(200);
    // The other one by card, declined and paid (the upsell's own card form).
    const second = await withKey(t, "POST", "/api/v1/upsell/sessions", key, sessionBody(orders[1]!));
    expect(second.statusCode, second.body).toBe(200);
    await post(t, "/api/upsell/pay-with-card", { sessionId: json(second).sessionId, offerId: "o1", card: { number: "4000000000000002", expMonth: 12, expYear: 2030, cvc: "123" } });

    const list = await withKey(t, "GET", "/api/v1/orders?limit=5", key);
    expect(list.statusCode, list.body).toBe(200);
    expect((await withKey(t, "GET", `/api/v1/orders/${order.orderId}`, key)).statusCode).toBe(200);
    const refund = await t.app.inject({ method: "POST", url: `/api/v1/orders/${order.orderId}/refunds`, payload: { amount: 250, reason: "requested_by_customer" }, headers: bearer(key) });
    expect(refund.statusCode, refund.body).toBe(200);
    const confirmation = await t.app.inject({ method: "GET", url: `/api/checkout/confirmation?transactionId=${encodeURIComponent(orders[2]!.transactionId)}` });
    expect(confirmation.statusCode, confirmation.body).toBeLessThan(500);

    // The back office reads what the flow made.
    const detail = await admin("GET", `/api/admin/orders/${order.orderId}`);
    expect(detail.statusCode, detail.body).toBeLessThan(500);
    for (const url of ["/api/admin/orders", "/api/admin/orders/export.csv", "/api/admin/dashboard", "/api/admin/audit-logs", "/api/admin/commissions", "/api/admin/api-keys", "/api/admin/auth", "/api/admin/users", "/api/admin/brands", "/api/admin/organizations", "/api/admin/settings", "/api/admin/webhooks"]) {
      expect((await admin("GET", url)).statusCode, url).toBe(200);
    }
    const hook = await admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/checkout", events: ["order.confirmed"] });
    if (hook.statusCode === 200) await admin("GET", `/api/admin/webhooks/${json(hook).endpoint?.id ?? json(hook).id}/deliveries`);
    expect(report().undocumented).toEqual([]);
    expect(report().mismatches).toEqual([]);
  });

  it("one sample call of every documented operation, with its credential and without", async () => {
    const operations = operationsOf(doc as { paths: Record<string, Record<string, any>> })
      // Ending or replacing the owner's session: last.
      .sort((a, b) => Number(endsSession(a)) - Number(endsSession(b)));
    for (const operation of operations) {
      const security = (doc.paths[operation.path][operation.method.toLowerCase()].security ?? []) as Record<string, string[]>[];
      const needs = security.length > 0 && !security.some((alternative) => Object.keys(alternative).length === 0);
      await sampleCall(operation, security);
      if (needs) await sampleCall(operation, []);
    }
    const { undocumented, mismatches, checked } = report();
    expect(undocumented).toEqual([]);
    expect(mismatches).toEqual([]);
    // Control: every operation of the document was answered and checked.
    const all = operations.map((op) => `${op.method} ${op.path}`);
    expect(all.filter((op) => !checked.has(op))).toEqual([]);
  });

  it("the cross-cutting refusals of every operation: 415, 413, 403 CSRF_REJECTED, 414, an invalid URL", async () => {
    const from = answers.length;
    for (const operation of operationsOf(doc as { paths: Record<string, Record<string, any>> }).filter((op) => !endsSession(op))) {
      const url = operation.path.replace(/\{path\}/, "sample").replace(/\{[^}]+\}/g, "sample-id");
      const method = operation.method as "POST";
      if (["POST", "PUT", "PATCH", "DELETE"].includes(method)) {
        await t.app.inject({ method, url, headers: { origin: ORIGIN, "content-type": "text/xml" }, payload: "<order/>" });
        await t.app.inject({ method, url, headers: { origin: ORIGIN, "content-type": "application/json" }, payload: `{"x":"${"x".repeat(1024 * 1024)}"}` });
        await t.app.inject({ method, url, headers: { origin: "https://elsewhere.example" }, cookies: { [SESSION_COOKIE]: owner.session } });
      }
      // The router answers these before any hook runs (no onSend): recorded from the answer itself.
      if (operation.path.includes("{")) {
        for (const param of ["x".repeat(300), "%ED%A0%80"]) {
          const refused = operation.path.replace(/\{[^}]+\}/g, param);
          const res = await t.app.inject({ method, url: refused, headers: { origin: ORIGIN } });
          answers.push({ method, route: undefined, url: refused, hidden: false, status: res.statusCode, contentType: String(res.headers["content-type"] ?? "").split(";")[0]!, body: res.body });
        }
      }
    }
    const statuses = new Set(answers.slice(from).map((answer) => answer.status));
    for (const status of [403, 413, 414, 415]) expect(statuses, String(status)).toContain(status);
    expect(report().undocumented).toEqual([]);
    expect(report().mismatches).toEqual([]);
  });

  it("429 on every operation the rate limit counts", async () => {
    const limited: Answer[] = [];
    const small = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "1" }, observe: recordAnswers(limited) });
    try {
      for (const operation of operationsOf(doc as { paths: Record<string, Record<string, any>> })) {
        await small.app.inject({ method: operation.method as "GET", url: operation.path.replace(/\{path\}/, "sample").replace(/\{[^}]+\}/g, "sample-id"), headers: { origin: ORIGIN } });
      }
    } finally {
      await small.close();
    }
    expect(limited.filter((answer) => answer.status === 429).length).toBeGreaterThan(100);
    const { undocumented, mismatches } = checkAnswers(doc, limited);
    expect(undocumented).toEqual([]);
    expect(mismatches).toEqual([]);
  });
});

function report() {
  return checkAnswers(doc, answers);
}

const endsSession = (op: Operation) => op.path === "/api/admin/auth" && op.method === "DELETE" || op.path.startsWith("/api/admin/auth/switch");

async function sampleCall(operation: Operation, security: Record<string, string[]>[]) {
  const schemes = new Set(security.flatMap((alternative) => Object.keys(alternative)));
  const query = new URLSearchParams();
  for (const parameter of operation.query) if (parameter.required) query.set(parameter.name, String(sampleOf(parameter.schema, parameter.name)));
  const url = operation.path.replace(/\{path\}/, "sample").replace(/\{[^}]+\}/g, "sample-id") + (query.size ? `?${query}` : "");
  await t.app.inject({
    method: operation.method as "GET",
    url,
    headers: { origin: ORIGIN, ...(schemes.has("merchantApiKey") ? bearer(key) : {}), ...(operation.body ? { "content-type": "application/json" } : {}) },
    cookies: schemes.has("adminSession") ? { [SESSION_COOKIE]: owner.session } : {},
    ...(operation.body ? { payload: JSON.stringify(sampleOf(operation.body)) } : {}),
  });
}
