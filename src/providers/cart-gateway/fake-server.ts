import { jsonOf, sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of the cart API at the network boundary (tests): carts, card payment with a saved card,
 * transactions, saved-card charges and order import. Card 4000000000000002 declines; a cart paid
 * with 4000000000000341 declines saved charges. `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeCartGateway {
  baseUrl: string;
  apiKey: string;
  requests: (FakeRequest & { json: Record<string, any> })[];
  failNext: FakeFailure;
  close(): Promise<void>;
}

export async function startFakeCartGateway(apiKey = "cart_live_fake_api_key_7777"): Promise<FakeCartGateway> {
  let counter = 0;
  const carts = new Map<string, { id: string; externalOrderId: string; status: string; total: number; currency: string; card?: string }>();
  const transactions = new Map<string, { id: string; cartId: string; externalOrderId: string; status: string; amount: number; currency: string }>();
  const fake: FakeCartGateway = { baseUrl: "", apiKey, requests: [], failNext: null, close: async () => {} };
  const charge = (cartId: string, externalOrderId: string, amount: number, currency: string, status: string) => {
    const t = { id: `ctx_${++counter}`, cartId, externalOrderId, status, amount, currency };
    transactions.set(t.id, t);
    return t;
  };

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
    const path = request.path;
    if (request.method === "GET" && path === "/v1/account") return sendJson(response, 200, { id: "acct_1" });
    if (request.method === "POST" && path === "/v1/carts") {
      const total = (json.items ?? []).reduce((s: number, i: any) => s + i.quantity * i.unitPrice, 0);
      const cart = { id: `cart_${++counter}`, externalOrderId: json.externalOrderId, status: "open", total, currency: json.currency };
      carts.set(cart.id, cart);
      return sendJson(response, 201, cart);
    }
    let m = /^\/v1\/carts\/([\w-]+)$/.exec(path);
    if (request.method === "GET" && m) {
      const cart = carts.get(m[1]!);
      return cart ? sendJson(response, 200, { ...cart, card: undefined }) : sendJson(response, 404, { error: { code: "not_found" } });
    }
    m = /^\/v1\/carts\/([\w-]+)\/pay$/.exec(path);
    if (request.method === "POST" && m) {
      const cart = carts.get(m[1]!);
      if (!cart) return sendJson(response, 404, { error: { code: "not_found" } });
      if (cart.status === "paid") return sendJson(response, 409, { error: { code: "cart_already_paid" } });
      if (json.card?.number === "4000000000000002") {
        charge(cart.id, cart.externalOrderId, cart.total, cart.currency, "failed");
        return sendJson(response, 402, { error: { code: "card_declined" } });
      }
      cart.status = "paid";
      cart.card = json.card?.number;
      return sendJson(response, 200, charge(cart.id, cart.externalOrderId, cart.total, cart.currency, "succeeded"));
    }
    m = /^\/v1\/carts\/([\w-]+)\/charge-saved$/.exec(path);
    if (request.method === "POST" && m) {
      const cart = carts.get(m[1]!);
      if (!cart || cart.status !== "paid") return sendJson(response, 404, { error: { code: "not_found" } });
      if (cart.card === "4000000000000341") return sendJson(response, 402, { error: { code: "card_declined" } });
      return sendJson(response, 200, charge(cart.id, json.externalOrderId, json.amount, json.currency, "succeeded"));
    }
    m = /^\/v1\/transactions\/([\w-]+)$/.exec(path);
    if (request.method === "GET" && m) {
      const t = transactions.get(m[1]!);
      return t ? sendJson(response, 200, t) : sendJson(response, 404, { error: { code: "not_found" } });
    }
    if (request.method === "POST" && path === "/v1/orders/import") {
      const paid = [...carts.values()].find((c) => c.externalOrderId === json.externalOrderId && c.status === "paid");
      return sendJson(response, 201, { id: paid ? paid.id : `ord_${++counter}` });
    }
    sendJson(response, 404, { error: { code: "not_found" } });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
