import { jsonOf, sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of the hosted store's Admin API at the network boundary (tests): draft orders, order
 * transactions, the mandate-payment mutation (a sale transaction of the order) and refunds. `pay`
 * stands in for the buyer paying on the draft's invoice page (`success` or `failure`);
 * `declineMandates` refuses later one-click charges; `declineRefunds` makes refunds' transactions
 * fail; a refund of more than is left of a payment is 422. `failNext` makes the next call answer 500
 * or garbage. Variants cost `variantPrice` each.
 */
export interface FakeHostedStore {
  baseUrl: string;
  accessToken: string;
  requests: (FakeRequest & { json: Record<string, any> })[];
  drafts: Map<string, Record<string, any>>;
  declineMandates: boolean;
  declineRefunds: boolean;
  /** Refunds made, by store order id. */
  refunds: Map<string, Record<string, any>[]>;
  failNext: FakeFailure;
  variantPrice: string;
  pay(draftId: string, result?: "success" | "failure"): void;
  close(): Promise<void>;
}

const API = "/admin/api/2024-10";

export async function startFakeHostedStore(accessToken = "shpat_fake_access_token_9999"): Promise<FakeHostedStore> {
  let counter = 0;
  const transactions = new Map<string, Record<string, any>[]>();
  const fake: FakeHostedStore = {
    baseUrl: "",
    accessToken,
    requests: [],
    drafts: new Map(),
    declineMandates: false,
    declineRefunds: false,
    refunds: new Map(),
    failNext: null,
    variantPrice: "10.00",
    pay(draftId, result = "success") {
      const draft = fake.drafts.get(draftId)!;
      const orderId = String(5000 + ++counter);
      Object.assign(draft, { status: "completed", order_id: Number(orderId) });
      transactions.set(orderId, [{ id: 9000 + counter, kind: "sale", status: result, amount: draft.total_price, currency: draft.currency, gateway: "shopify_payments", parent_id: null }]);
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
      const { id, amount } = json.variables ?? {};
      const paymentId = `pref_${++counter}`;
      transactions.get(String(id).split("/").at(-1)!)?.push({ id: 9000 + counter, kind: "sale", status: "success", amount: amount?.amount, currency: amount?.currencyCode, gateway: "shopify_payments", parent_id: null, payment_id: paymentId });
      return sendJson(response, 200, { data: { orderCreateMandatePayment: { paymentReferenceId: paymentId, userErrors: [] } } });
    }
    const refundsMatch = new RegExp(`^${API}/orders/(\\d+)/refunds\\.json$`).exec(request.path);
    if (refundsMatch) {
      const orderId = refundsMatch[1]!;
      const list = transactions.get(orderId);
      if (!list) return sendJson(response, 404, { errors: "Not Found" });
      const refunds = fake.refunds.get(orderId) ?? [];
      if (request.method === "GET") return sendJson(response, 200, { refunds });
      const made: Record<string, any>[] = [];
      for (const wanted of json.refund?.transactions ?? []) {
        const parent = list.find((t) => t.id === wanted.parent_id && t.kind === "sale" && t.status === "success");
        const refunded = list.filter((t) => t.parent_id === wanted.parent_id && t.kind === "refund" && t.status === "success").reduce((sum, t) => sum + Number(t.amount), 0);
        if (!parent || !(Number(wanted.amount) > 0) || Number(wanted.amount) > Number(parent.amount) - refunded + 1e-9) {
          return sendJson(response, 422, { errors: { base: ["Refund amount must be less than or equal to the refundable amount"] } });
        }
        const failed = fake.declineRefunds;
        made.push({ id: 9000 + ++counter, kind: "refund", status: failed ? "failure" : "success", amount: wanted.amount, currency: parent.currency, gateway: parent.gateway, parent_id: parent.id, error_code: null, message: failed ? "Refund declined" : "Refund succeeded" });
      }
      list.push(...made);
      const refund = { id: 7000 + ++counter, order_id: Number(orderId), note: json.refund?.note ?? null, transactions: made };
      fake.refunds.set(orderId, [...refunds, refund]);
      return sendJson(response, 201, { refund });
    }
    sendJson(response, 404, { errors: "Not Found" });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
