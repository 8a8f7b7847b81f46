import { jsonOf, sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of the hosted store's Admin API at the network boundary (tests): draft orders, order
 * transactions and the mandate-payment mutation. `pay` stands in for the buyer paying on the
 * draft's invoice page (`success` or `failure`); `declineMandates` refuses later one-click charges;
 * `failNext` makes the next call answer 500 or garbage. Variants cost `variantPrice` each.
 */
export interface FakeHostedStore {
  baseUrl: string;
  accessToken: string;
  requests: (FakeRequest & { json: Record<string, any> })[];
  drafts: Map<string, Record<string, any>>;
  declineMandates: boolean;
  failNext: FakeFailure;
  variantPrice: string;
  pay(draftId: string, result?: "success" | "failure"): void;
  close(): Promise<void>;
}

const API = "/admin/api/2024-10";

export async function startFakeHostedStore(accessToken = "shpat_fake_access_token_9999"): Promise<FakeHostedStore> {
  let counter = 0;
  const transactions = new Map<string, Record<string, unknown>[]>();
  const fake: FakeHostedStore = {
    baseUrl: "",
    accessToken,
    requests: [],
    drafts: new Map(),
    declineMandates: false,
    failNext: null,
    variantPrice: "10.00",
    pay(draftId, result = "success") {
      const draft = fake.drafts.get(draftId)!;
      const orderId = String(5000 + ++counter);
      Object.assign(draft, { status: "completed", order_id: Number(orderId) });
      transactions.set(orderId, [{ id: 9000 + counter, kind: "sale", status: result, amount: draft.total_price, currency: draft.currency }]);
    },
    close: async () => {},
  };
  const server = await startHttpFake((request, response) => {
    const json = jsonOf(request.body);
    fake.requests.push({ ...request, json });
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { errors: "Internal Server Error" });
      response.writeHead(200, { "content-type": "text/html" });
      return response.end("<html>store unavailable");
    }
    if (request.headers["x-shopify-access-token"] !== accessToken) return sendJson(response, 401, { errors: "[API] Invalid API key or access token" });

    if (request.method === "POST" && request.path === `${API}/draft_orders.json`) {
      const input = json.draft_order ?? {};
      const id = String(1000 + ++counter);
      const total = (input.line_items ?? []).reduce((sum: number, l: any) => sum + Number(l.price ?? fake.variantPrice) * Number(l.quantity ?? 1), 0);
      const draft = {
        id: Number(id),
        status: "open",
        invoice_url: `${fake.baseUrl}/invoices/${id}`,
        order_id: null,
        currency: input.currency ?? "USD",
        total_price: total.toFixed(2),
        note_attributes: input.note_attributes ?? [],
        line_items: input.line_items ?? [],
      };
      fake.drafts.set(id, draft);
      return sendJson(response, 201, { draft_order: draft });
    }
    const draftMatch = new RegExp(`^${API}/draft_orders/(\\d+)\\.json$`).exec(request.path);
    if (request.method === "GET" && draftMatch) {
      const draft = fake.drafts.get(draftMatch[1]!);
      return draft ? sendJson(response, 200, { draft_order: draft }) : sendJson(response, 404, { errors: "Not Found" });
    }
    const txMatch = new RegExp(`^${API}/orders/(\\d+)/transactions\\.json$`).exec(request.path);
    if (request.method === "GET" && txMatch) {
      const list = transactions.get(txMatch[1]!);
      return list ? sendJson(response, 200, { transactions: list }) : sendJson(response, 404, { errors: "Not Found" });
    }
    if (request.method === "POST" && request.path === `${API}/graphql.json`) {
      if (fake.declineMandates) return sendJson(response, 200, { data: { orderCreateMandatePayment: { paymentReferenceId: null, userErrors: [{ field: null, message: "declined", code: "PAYMENT_DECLINED" }] } } });
      return sendJson(response, 200, { data: { orderCreateMandatePayment: { paymentReferenceId: `pref_${++counter}`, userErrors: [] } } });
    }
    sendJson(response, 404, { errors: "Not Found" });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
