// The merchant guide's first order (docs/merchant-guide.md), end to end in test mode, with nothing but
// Node's fetch: create a checkout, pay it as the buyer's browser would with a test card, verify the
// order from your server, refund part of it, and read the events. Run it against your service:
//
//   CHECKOUT_URL=http://localhost:3000 CHECKOUT_API_KEY=sk_test_… node docs/examples/first-order.mjs
const BASE = process.env.CHECKOUT_URL ?? "http://localhost:3000";
const KEY = process.env.CHECKOUT_API_KEY;
if (!KEY) throw new Error("Set CHECKOUT_API_KEY to a test API key (sk_test_…) of your brand");

async function call(method, path, body, headers = {}) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}
const api = (method, path, body, headers = {}) => call(method, path, body, { authorization: `Bearer ${KEY}`, ...headers });

// 1. Your server creates the checkout. A new Idempotency-Key per new checkout (here: from the order id),
//    the same key only when you retry the same request.
const orderId = `order-${Date.now()}`;
const checkout = await api("POST", "/api/v1/checkouts",
  { orderId, amount: 4999, currency: "USD", productName: "Starter kit", successUrl: "https://shop.example.com/thanks", metadata: { cartId: "cart-42" } },
  { "idempotency-key": `create-${orderId}` });
console.log(`checkout ${checkout.id} (livemode ${checkout.livemode}): send the buyer to ${checkout.url}`);

// 2. What the hosted page does in the buyer's browser (test mode: the demo provider, test card 4242…).
const token = checkout.url.split("/checkout/")[1];
await call("POST", "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const paid = await call("POST", "/api/providers/vault_gateway_b/process-payment",
  { orderId, amount: 4999, currency: "USD", cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2030", cardCvv: "123" });
await call("POST", "/api/checkout/complete",
  { orderId, transactionId: paid.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada Lovelace", amount: 4999, currency: "USD" });
// The buyer now lands on https://shop.example.com/thanks?orderId=…&transactionId=…&provider=…

// 3. Your thank-you page (or your webhook handler) verifies the order from your server before shipping.
const order = await api("GET", `/api/v1/orders/${encodeURIComponent(orderId)}`);
if (order.status !== "paid" || order.amount !== 4999 || order.currency !== "USD") throw new Error(`order not paid: ${JSON.stringify(order)}`);
console.log(`order ${order.orderId}: ${order.status}, ${order.amount} ${order.currency}, metadata ${JSON.stringify(order.metadata)}`);

// 4. A partial refund.
const { refund } = await api("POST", `/api/v1/orders/${encodeURIComponent(orderId)}/refunds`, { amount: 1000, reason: "requested_by_customer" }, { "idempotency-key": `refund-${orderId}` });
console.log(`refund ${refund.id}: ${refund.status}, ${refund.amount} ${refund.currency}`);

// 5. The events your webhook endpoint receives, also readable (30 days) through the events API.
const events = await api("GET", "/api/v1/events?type=order.confirmed,refund.succeeded&limit=10");
const mine = events.data.filter((event) => event.data.orderId === orderId);
console.log(`events: ${mine.map((event) => `${event.type} ${event.id}`).join(", ")}`);
if (mine.length !== 2) throw new Error(`expected order.confirmed and refund.succeeded, got ${mine.length} events`);
