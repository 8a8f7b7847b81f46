// The checkout as a merchant and a browser drive it (SPEC.md "Checkout"): a signed token, initialize,
// the card payment at the provider endpoint, complete. Shared by the runner, the SQL capture and the
// replica pools, so all of them send the same shapes.
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";

export const PROVIDER = process.env.BENCH_PROVIDER || "vault_gateway_b";
const AMOUNT = 4999;
const CURRENCY = "USD";
// Per process, so two runs on one database never collide on orderId.
const RUN = randomBytes(4).toString("hex");
let sequence = 0;

/** A new merchant order: every initialize and complete in the benchmark works on its own order. */
export function newOrder() {
  const n = ++sequence;
  return {
    orderId: `bench-${RUN}-${n}`,
    amount: AMOUNT,
    currency: CURRENCY,
    email: `buyer-${RUN}-${n}@example.com`,
    firstName: "Bench",
    lastName: `Buyer${n}`,
  };
}

/** Signs the checkout token as a merchant server would (HS256 with CHECKOUT_TOKEN_SECRET). */
export async function signCheckoutToken(order, secret) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    orderId: order.orderId,
    amount: order.amount,
    currency: order.currency,
    productName: "Benchmark product",
    productDescription: "One unit of the benchmark product",
    customer: { email: order.email, firstName: order.firstName, lastName: order.lastName },
    provider: PROVIDER,
    successUrl: "https://merchant.example/thanks",
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(secret));
}

export function initializeBody(order, token) {
  return {
    token,
    provider: PROVIDER,
    customer: { email: order.email, firstName: order.firstName, lastName: order.lastName },
  };
}

export function paymentBody(order) {
  return {
    orderId: order.orderId,
    amount: order.amount,
    currency: order.currency,
    cardNumber: "4242424242424242",
    cardExpMonth: "12",
    cardExpYear: "2030",
    cardCvv: "123",
    customer: { email: order.email, firstName: order.firstName, lastName: order.lastName },
  };
}

export function completeBody(order, initialized, paid) {
  const body = {
    orderId: order.orderId,
    transactionId: paid.transactionId,
    provider: PROVIDER,
    customerEmail: order.email,
    customerName: `${order.firstName} ${order.lastName}`,
    amount: order.amount,
    currency: order.currency,
    customer: { firstName: order.firstName, lastName: order.lastName },
  };
  if (initialized.providerOrderId) body.providerOrderId = initialized.providerOrderId;
  return body;
}

/** Paths of the three steps: the service's, or the replica server's (same bodies, shorter paths). */
export const SERVICE_PATHS = {
  initialize: "/api/checkout/initialize",
  pay: `/api/providers/${PROVIDER}/process-payment`,
  complete: "/api/checkout/complete",
};
export const REPLICA_PATHS = { initialize: "/initialize", pay: "/pay", complete: "/complete" };

export async function postJson(baseUrl, path, body) {
  const response = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Reported below with the raw text.
  }
  if (!response.ok) {
    const error = new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    error.status = response.status;
    throw error;
  }
  return json;
}

/**
 * `count` orders initialized and paid, ready for complete: each item is the complete body.
 * Prepared through the API (never by writing rows ourselves), `concurrency` at a time.
 */
export async function prepareCompletions({ baseUrl, paths, secret, count, concurrency = 64 }) {
  const ready = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const order = newOrder();
      const token = await signCheckoutToken(order, secret);
      const initialized = await postJson(baseUrl, paths.initialize, initializeBody(order, token));
      const paid = await postJson(baseUrl, paths.pay, paymentBody(order));
      ready.push(completeBody(order, initialized, paid));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return ready;
}

/** `count` initialize bodies, each on a new order with its own token. */
export async function prepareInitializations({ secret, count }) {
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const order = newOrder();
    bodies.push(initializeBody(order, await signCheckoutToken(order, secret)));
  }
  return bodies;
}
