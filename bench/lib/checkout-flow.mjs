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

/** Signs the checkout token as a merchant server would (HS256 with CHECKOUT_TOKEN_SECRET); `namesProvider: false` leaves the provider to routing. */
export async function signCheckoutToken(order, secret, { namesProvider = true } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    orderId: order.orderId,
    amount: order.amount,
    currency: order.currency,
    productName: "Benchmark product",
    productDescription: "One unit of the benchmark product",
    customer: { email: order.email, firstName: order.firstName, lastName: order.lastName },
    ...(namesProvider ? { provider: PROVIDER } : {}),
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

/** Paths of the steps: the service's, or the replica server's (same bodies, shorter paths). */
export const SERVICE_PATHS = {
  initialize: "/api/checkout/initialize",
  pay: `/api/providers/${PROVIDER}/process-payment`,
  /** The checkout page's one pay call (issue 34): routes or, with a token naming its provider, charges that one. */
  checkoutPay: "/api/checkout/pay",
  complete: "/api/checkout/complete",
  createSession: "/api/upsell/create-session",
  accept: "/api/upsell/accept",
  decline: "/api/upsell/decline",
};
export const REPLICA_PATHS = {
  initialize: "/initialize",
  pay: "/pay",
  complete: "/complete",
  createSession: "/upsell/create-session",
  accept: "/upsell/accept",
  decline: "/upsell/decline",
};

export async function postJson(baseUrl, path, body) {
  let response;
  let text;
  // Preparing thousands of checkouts 64 at a time is a burst admission control may refuse (503
  // OVERLOADED, answered before any database work): wait its Retry-After and send again, as a client would.
  for (let attempt = 1; ; attempt++) {
    response = await fetch(baseUrl + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    text = await response.text();
    if (response.status !== 503 || !text.includes('"OVERLOADED"') || attempt === 20) break;
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? 1) * 1000));
  }
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

// The upsell after a checkout (SPEC.md "Upsell"): a session with two offers on a completed order,
// then one click on an offer. Each measured accept or decline gets a session of its own.
export const UPSELL_OFFERS = [
  { id: "bench-offer-a", name: "Benchmark add-on", price: 1999 },
  { id: "bench-offer-b", name: "Benchmark extra", price: 999 },
];

/** `count` completed checkouts whose saved payment methods the upsell sessions charge. */
export async function prepareUpsellOrigins({ baseUrl, paths, secret, count }) {
  const bodies = await prepareCompletions({ baseUrl, paths, secret, count });
  return Promise.all(
    bodies.map(async (body) => {
      const completed = await postJson(baseUrl, paths.complete, body);
      return { orderId: body.orderId, email: body.customerEmail, paymentMethodToken: completed.paymentMethodToken };
    }),
  );
}

let upsellSequence = 0;
/** A create-session body on one of the origins (several sessions may share an original order). */
export function createSessionBody(origin) {
  return {
    orderId: `${origin.orderId}-up-${++upsellSequence}`,
    originalOrderId: origin.orderId,
    customerEmail: origin.email,
    paymentMethodToken: origin.paymentMethodToken,
    provider: PROVIDER,
    currency: CURRENCY,
    offers: UPSELL_OFFERS,
  };
}

export function createSessionBodies(origins, count) {
  return Array.from({ length: count }, (_, i) => createSessionBody(origins[i % origins.length]));
}

/** `count` new sessions, created through the API, as answer bodies for `offerId`. */
export async function prepareAnswers({ baseUrl, paths, origins, count, offerId, concurrency = 32 }) {
  const bodies = createSessionBodies(origins, count);
  const answers = [];
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const created = await postJson(baseUrl, paths.createSession, bodies[next++]);
      answers.push({ sessionId: created.sessionId, offerId });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return answers;
}
