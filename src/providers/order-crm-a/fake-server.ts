import type { ServerResponse } from "node:http";
import { sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/** An order as the fake CRM keeps it; amounts in cents. */
export interface FakeCrmAOrder {
  order_id: string;
  order_status: "pending" | "approved" | "partially_refunded" | "refunded";
  external_order_id: string;
  totalCents: number;
  currency: string;
  transaction_id: string | null;
  /** The card's number it was paid with (tests only: which test-card behaviour applies). */
  card: string;
  previousOrderId: string | null;
  notes: string;
  refundedCents: number;
  refunds: { refund_id: string; amount: string; status: "approved" | "declined"; notes: string }[];
}

/**
 * A fake of order_crm_a's CRM API at the network boundary (tests): basic auth (a wrong login is
 * response_code 200), `validate_credentials`, `new_order` (creditCardType `offline` records a paid
 * order, `pending` makes one to pay), `order_view` (350 for an unknown order), `order_find` by
 * `criteria.external_order_id` (333 when none), `order_payment`
 * (4000000000000002 is declined 800 "Card declined", 4000000000009995 "Insufficient funds"),
 * `new_upsell` on a paid order (one paid with 4000000000000341 declines them), `order_refund` up to
 * what is left (600 beyond; an order paid with 4000000000005126 declines them, 800; refunds, declined
 * ones too, are kept on the order with their notes). `failNext` makes the next call answer 500 or garbage;
 * `delayMs` makes every answer wait.
 */
export interface FakeOrderCrmA {
  baseUrl: string;
  username: string;
  password: string;
  requests: (FakeRequest & { json: Record<string, unknown> })[];
  orders: Map<string, FakeCrmAOrder>;
  failNext: FakeFailure;
  /** Every answer waits this long (a slow CRM); the request is recorded when it arrives. */
  delayMs: number;
  close(): Promise<void>;
}

const cents = (decimal: unknown) => Math.round(Number(decimal) * 100);
const decimal = (c: number) => (c / 100).toFixed(2);
const viewOf = ({ totalCents, card: _card, refundedCents, previousOrderId: _previous, ...shown }: FakeCrmAOrder) => ({ ...shown, order_total: decimal(totalCents), amount_refunded_to_date: decimal(refundedCents) });
const unknownOrder = { response_code: "350", error_found: "1", error_message: "Invalid order Id" };
const declined = (reason: string) => ({ response_code: "800", error_found: "1", error_message: "This transaction has been declined", decline_reason: reason });

export async function startFakeOrderCrmA(username = "api-user", password = "crm-a-password-1234"): Promise<FakeOrderCrmA> {
  let counter = 0;
  const orders = new Map<string, FakeCrmAOrder>();
  const fake: FakeOrderCrmA = { baseUrl: "", username, password, requests: [], orders, failNext: null, delayMs: 0, close: async () => {} };
  const newOrder = (json: Record<string, unknown>, fields: Partial<FakeCrmAOrder>) => {
    const order: FakeCrmAOrder = {
      order_id: String(50_000 + ++counter),
      order_status: "pending",
      external_order_id: String(json.externalOrderId ?? ""),
      totalCents: cents(json.total),
      currency: String(json.currency ?? "USD"),
      transaction_id: null,
      card: "",
      previousOrderId: null,
      notes: String(json.notes ?? ""),
      refundedCents: 0,
      refunds: [],
      ...fields,
    };
    orders.set(order.order_id, order);
    return order;
  };
  const server = await startHttpFake((request, response) => {
    let json: Record<string, unknown> = {};
    try {
      json = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    } catch {
      /* recorded as empty */
    }
    fake.requests.push({ ...request, json });
    if (fake.delayMs > 0) setTimeout(() => answer(request, json, response), fake.delayMs);
    else answer(request, json, response);
  });
  function answer(request: FakeRequest, json: Record<string, unknown>, response: ServerResponse) {
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { error: "down" });
      response.writeHead(200, { "content-type": "text/html" });
      return response.end("<html>");
    }
    if (request.headers.authorization !== `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`) {
      return sendJson(response, 200, { response_code: "200", error_found: "1", error_message: "Invalid login credentials" });
    }
    const order = orders.get(String(json.order_id ?? json.previousOrderId ?? ""));
    switch (request.path) {
      case "/api/v1/validate_credentials":
        return sendJson(response, 200, { response_code: "100" });
      case "/api/v1/new_order": {
        const made = newOrder(json, json.creditCardType === "pending" ? {} : { order_status: "approved" });
        return sendJson(response, 200, { response_code: "100", error_found: "0", order_id: made.order_id });
      }
      case "/api/v1/order_view": {
        if (!order) return sendJson(response, 200, unknownOrder);
        return sendJson(response, 200, { response_code: "100", ...viewOf(order) });
      }
      case "/api/v1/order_find": {
        const wanted = (json.criteria as { external_order_id?: unknown } | undefined)?.external_order_id;
        const found = [...orders.values()].filter((o) => o.external_order_id === wanted);
        if (found.length === 0) return sendJson(response, 200, { response_code: "333", error_found: "1", error_message: "No orders found" });
        return sendJson(response, 200, { response_code: "100", total_orders: found.length, order_id: found.map((o) => o.order_id), data: found.map(viewOf) });
      }
      case "/api/v1/order_payment": {
        if (!order) return sendJson(response, 200, unknownOrder);
        if (order.order_status !== "pending") return sendJson(response, 200, { response_code: "900", error_found: "1", error_message: "Order is not pending" });
        const number = String(json.creditCardNumber ?? "");
        if (number === "4000000000000002") return sendJson(response, 200, declined("Card declined"));
        if (number === "4000000000009995") return sendJson(response, 200, declined("Insufficient funds"));
        Object.assign(order, { order_status: "approved", transaction_id: `T${++counter}`, card: number });
        return sendJson(response, 200, { response_code: "100", error_found: "0", order_id: order.order_id, transactionID: order.transaction_id, orderTotal: decimal(order.totalCents) });
      }
      case "/api/v1/new_upsell": {
        if (!order || order.order_status === "pending") return sendJson(response, 200, unknownOrder);
        if (order.card === "4000000000000341") return sendJson(response, 200, declined("Card declined"));
        const upsell = newOrder(json, { order_status: "approved", transaction_id: `T${++counter}`, card: order.card, previousOrderId: order.order_id });
        return sendJson(response, 200, { response_code: "100", error_found: "0", order_id: upsell.order_id, transactionID: upsell.transaction_id });
      }
      case "/api/v1/order_refund": {
        if (!order || order.order_status === "pending") return sendJson(response, 200, unknownOrder);
        const amount = cents(json.amount);
        if (!(amount > 0) || amount > order.totalCents - order.refundedCents) return sendJson(response, 200, { response_code: "600", error_found: "1", error_message: "Refund amount exceeds the amount available" });
        const refund = { refund_id: `R${++counter}`, amount: decimal(amount), status: "approved" as "approved" | "declined", notes: String(json.notes ?? "") };
        order.refunds.push(refund);
        if (order.card === "4000000000005126") {
          refund.status = "declined";
          return sendJson(response, 200, { ...declined("Refund declined"), error_message: "Refund declined by the processor" });
        }
        order.refundedCents += amount;
        order.order_status = order.refundedCents === order.totalCents ? "refunded" : "partially_refunded";
        return sendJson(response, 200, { response_code: "100", error_found: "0", order_id: order.order_id, refund_id: refund.refund_id });
      }
      default:
        sendJson(response, 404, {});
    }
  }
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
