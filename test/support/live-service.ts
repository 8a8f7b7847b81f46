// Driving a started service process over HTTP (test/support/process.ts starts it): an owner session,
// a webhook endpoint, and demo checkouts completed as a customer would.
import { SignJWT } from "jose";
import { SESSION_COOKIE } from "../../src/identity/policy.js";

/** One JSON request as the back office page sends it (same-origin, the session cookie when given). */
export async function callOver(baseUrl: string, method: string, url: string, body?: unknown, cookie?: string) {
  const res = await fetch(baseUrl + url, {
    method,
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {}, headers: res.headers };
}

/** Registers an owner (the first registration adopts the default organization and brand) and returns the session. */
export async function registerOwnerOver(baseUrl: string): Promise<string> {
  const res = await callOver(baseUrl, "POST", "/api/auth/register", { name: "Ops", email: `ops-${Date.now()}@example.com`, password: "correct horse battery", orgName: "Ops shop" });
  if (res.status !== 200) throw new Error(`register failed ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!cookie) throw new Error("no session cookie");
  return cookie.slice(SESSION_COOKIE.length + 1).split(";")[0];
}

export async function addEndpointOver(baseUrl: string, session: string, url: string): Promise<{ id: string; secret: string }> {
  const res = await callOver(baseUrl, "POST", "/api/admin/webhooks", { name: "Receiver", url, events: ["*"] }, session);
  if (res.status !== 200) throw new Error(`create endpoint failed ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; secret: string };
}

/** One demo checkout completed end to end (initialize, demo card payment, complete); returns its orderId. */
export async function completeCheckoutOver(baseUrl: string, tokenSecret: string, orderId: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ orderId, amount: 1500, currency: "USD", productName: "Kit", iat: now, exp: now + 3600 })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode(tokenSecret));
  const init = await callOver(baseUrl, "POST", "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
  if (init.status !== 200) throw new Error(`initialize ${init.status} ${JSON.stringify(init.body)}`);
  const paid = await callOver(baseUrl, "POST", "/api/providers/vault_gateway_b/process-payment", {
    orderId,
    amount: 1500,
    currency: "USD",
    cardNumber: "4242424242424242",
    cardExpMonth: "12",
    cardExpYear: "2031",
    cardCvv: "123",
  });
  if (paid.status !== 200) throw new Error(`pay ${paid.status} ${JSON.stringify(paid.body)}`);
  const done = await callOver(baseUrl, "POST", "/api/checkout/complete", {
    orderId,
    transactionId: paid.body.transactionId,
    provider: "vault_gateway_b",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: 1500,
    currency: "USD",
  });
  if (done.status !== 200) throw new Error(`complete ${done.status} ${JSON.stringify(done.body)}`);
}
