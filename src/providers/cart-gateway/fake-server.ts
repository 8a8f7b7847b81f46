import { jsonOf, sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of the cart API at the network boundary (tests): carts, card payment with a saved card,
 * transactions, saved-card charges, refunds and order import. Card 4000000000000002 declines; a cart
 * paid with 4000000000000341 declines saved charges; refunds of its charges with 4000000000005126 are
 * declined (402). A POST with an Idempotency-Key seen before on the same path answers the first answer
 * again and does nothing. `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeCartGateway {
  baseUrl: string;
  apiKey: string;
  requests: (FakeRequest & { json: Record<string, any> })[];
  /** The refunds made, in order. */
  refunds: { id: string; transactionId: string; amount: number }[];
  failNext: FakeFailure;
  close(): Promise<void>;
}

type Answer = [status: number, body: unknown];

export async function startFakeCartGateway(apiKey = "cart_live_fake_api_key_7777"): Promise<FakeCartGateway> {
  let counter = 0;
  const carts = new Map<string, { id: string; externalOrderId: string; status: string; total: number; currency: string; card?: string }>();
  const transactions = new Map<string, { id: string; cartId: string; externalOrderId: string; status: string; amount: number; currency: string; refunded: number }>();
  const answered = new Map<string, Answer>();
  const fake: FakeCartGateway = { baseUrl: "", apiKey, requests: [], refunds: [], failNext: null, close: async () => {} };
  const charge = (cartId: string, externalOrderId: string, amount: number, currency: string, status: string) => {
    const t = { id: `ctx_${++counter}`, cartId, externalOrderId, status, amount, currency, refunded: 0 };
    transactions.set(t.id, t);
    return { ...t, refunded: undefined };
  };
  const notFound: Answer = [404, { error: { code: "not_found" } }];

  function answer(method: string, path: string, json: Record<string, any>): Answer {
    if (method === "GET" && path === "/v1/account") return [200, { id: "acct_1" }];
    if (method === "POST" && path === "/v1/carts") {
      const total = (json.items ?? []).reduce((s: number, i: any) => s + i.quantity * i.unitPrice, 0);
      const cart = { id: `cart_${++counter}`, externalOrderId: json.externalOrderId, status: "open", total, currency: json.currency };
      carts.set(cart.id, cart);
      return [201, cart];
    }
    let m = /^\/v1\/carts\/([\w-]+)$/.exec(path);
    if (method === "GET" && m) {
      const cart = carts.get(m[1]!);
      return cart ? [200, { ...cart, card: undefined }] : notFound;
    }
    m = /^\/v1\/carts\/([\w-]+)\/pay$/.exec(path);
    if (method === "POST" && m) {
      const cart = carts.get(m[1]!);
      if (!cart) return notFound;
      if (cart.status === "paid") return [409, { error: { code: "cart_already_paid" } }];
      if (json.card?.number === "4000000000000002") {
        charge(cart.id, cart.externalOrderId, cart.total, cart.currency, "failed");
        return [402, { error: { code: "card_declined" } }];
      }
      cart.status = "paid";
      cart.card = json.card?.number;
      return [200, charge(cart.id, cart.externalOrderId, cart.total, cart.currency, "succeeded")];
    }
    m = /^\/v1\/carts\/([\w-]+)\/charge-saved$/.exec(path);
    if (method === "POST" && m) {
      const cart = carts.get(m[1]!);
      if (!cart || cart.status !== "paid") return notFound;
      if (cart.card === "4000000000000341") return [402, { error: { code: "card_declined" } }];
      return [200, charge(cart.id, json.externalOrderId, json.amount, json.currency, "succeeded")];
    }
    m = /^\/v1\/transactions\/([\w-]+)$/.exec(path);
    if (method === "GET" && m) {
      const t = transactions.get(m[1]!);
      return t ? [200, { ...t, refunded: undefined }] : notFound;
    }
    m = /^\/v1\/transactions\/([\w-]+)\/refunds$/.exec(path);
    if (method === "POST" && m) {
      const t = transactions.get(m[1]!);
      if (!t) return notFound;
      if (t.status !== "succeeded") return [409, { error: { code: "charge_not_refundable" } }];
      if (!Number.isInteger(json.amount) || json.amount < 1) return [400, { error: { code: "invalid_amount" } }];
      if (json.amount > t.amount - t.refunded) return [409, { error: { code: "amount_too_large" } }];
      if (carts.get(t.cartId)?.card === "4000000000005126") return [402, { error: { code: "refund_declined" } }];
      t.refunded += json.amount;
      const refund = { id: `cre_${++counter}`, transactionId: t.id, amount: json.amount, currency: t.currency, reason: json.reason ?? null, status: "succeeded" };
      fake.refunds.push({ id: refund.id, transactionId: t.id, amount: refund.amount });
      return [201, refund];
    }
    if (method === "POST" && path === "/v1/orders/import") {
      const paid = [...carts.values()].find((c) => c.externalOrderId === json.externalOrderId && c.status === "paid");
      return [201, { id: paid ? paid.id : `ord_${++counter}` }];
    }
    return notFound;
  }

  const server = await startHttpFake((request, response) => {
    const json = jsonOf(request.body);
    fake.requests.push({ ...request, json });
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { error: { code: "internal" } });
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("oops");
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) return sendJson(response, 401, { error: { code: "unauthorized" } });
    const key = request.method === "POST" ? request.headers["idempotency-key"] : undefined;
    const keyed = typeof key === "string" ? `${key} ${request.path}` : null;
    const [status, body] = (keyed && answered.get(keyed)) || answer(request.method, request.path, json);
    if (keyed) answered.set(keyed, [status, body]);
    sendJson(response, status, body);
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
