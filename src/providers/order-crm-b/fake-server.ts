import { sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of order_crm_b's API at the network boundary (tests) with loginId/password: leads,
 * order import (PREPAID records, CREDITCARD charges: 4000000000000002 declines), order queries
 * by custom1 (each order with its `transactionId`), transaction queries (by transactionId, or txnType and custom1), upsales (an order paid with
 * 4000000000000341 declines them), transaction refunds up to what is left (an order paid with
 * 4000000000005126 declines them; refunds, declined ones too, are transactions with the request's
 * custom1), campaign query. `failNext` makes the next call answer 500 or garbage;
 * `loseNextAnswerTo` lets the next call to a path take effect and answers 500.
 */
export interface FakeOrderCrmB {
  baseUrl: string;
  loginId: string;
  password: string;
  requests: (FakeRequest & { form: Record<string, string> })[];
  transactions: Map<string, Record<string, any>>;
  /** CRM orders (`transactionId`: the sale a CREDITCARD import charged, or the one a PREPAID import names). */
  orders: Map<string, { orderId: string; custom1: string; card: string; transactionId: string }>;
  failNext: FakeFailure;
  /** The next call to this path takes effect but answers 500, as when its answer is lost. */
  loseNextAnswerTo: string | null;
  close(): Promise<void>;
}

export async function startFakeOrderCrmB(loginId = "crm-b-login", password = "crm-b-password-5678"): Promise<FakeOrderCrmB> {
  let counter = 0;
  const orders: FakeOrderCrmB["orders"] = new Map();
  const transactions = new Map<string, Record<string, any>>();
  const fake: FakeOrderCrmB = { baseUrl: "", loginId, password, requests: [], transactions, orders, failNext: null, loseNextAnswerTo: null, close: async () => {} };
  const server = await startHttpFake((request, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    fake.requests.push({ ...request, form });
    // loseNextAnswerTo: the call takes effect, its answer is replaced by a 500 (lost on the way back).
    const lose = fake.loseNextAnswerTo === request.path;
    if (lose) fake.loseNextAnswerTo = null;
    const send = (status: number, reply: unknown) => sendJson(response, lose ? 500 : status, lose ? { result: "ERROR" } : reply);
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { result: "ERROR" });
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("maintenance");
    }
    if (form.loginId !== loginId || form.password !== password) return send(200, { result: "ERROR", message: "Invalid login" });
    if (request.path === "/campaign/query/") return send(200, { result: "SUCCESS", message: { totalResults: 1, data: [] } });
    if (request.path === "/leads/import/") return send(200, { result: "SUCCESS", message: { orderId: `KL${(++counter).toString().padStart(6, "0")}` } });
    if (request.path === "/order/query/") {
      const found = [...orders.values()].filter((o) => o.custom1 === form.custom1).map(({ card: _card, ...shown }) => ({ ...shown, orderStatus: "COMPLETE" }));
      return send(200, { result: "SUCCESS", message: { totalResults: found.length, data: found } });
    }
    if (request.path === "/order/import/") {
      const orderId = `KB${(++counter).toString().padStart(6, "0")}`;
      if (form.paySource !== "CREDITCARD") {
        // PREPAID: an order paid elsewhere, kept with the transaction it names (found by order query).
        orders.set(orderId, { orderId, custom1: form.custom1 ?? "", card: "", transactionId: form.transactionId ?? "" });
        return send(200, { result: "SUCCESS", message: { orderId } });
      }
      if (form.cardNumber === "4000000000000002") return send(200, { result: "ERROR", message: "This transaction has been declined" });
      let total = 0;
      for (let i = 1; form[`product${i}_id`]; i++) total += Number(form[`product${i}_price`]) * Number(form[`product${i}_qty`]);
      const transactionId = `KT${++counter}`;
      orders.set(orderId, { orderId, custom1: form.custom1 ?? "", card: form.cardNumber ?? "", transactionId });
      transactions.set(transactionId, { transactionId, orderId, custom1: form.custom1, txnType: "SALE", responseType: "SUCCESS", totalAmount: total.toFixed(2), currency: form.currency ?? "USD", refunded: 0 });
      return send(200, { result: "SUCCESS", message: { orderId, transactionId, totalAmount: total.toFixed(2) } });
    }
    if (request.path === "/transactions/query/") {
      const criteria = (["transactionId", "txnType", "custom1"] as const).filter((k) => form[k] !== undefined);
      const found = [...transactions.values()].filter((t) => criteria.every((k) => t[k] === form[k]));
      return found.length > 0 ? send(200, { result: "SUCCESS", message: { totalResults: found.length, data: found } }) : send(200, { result: "ERROR", message: "No transactions matching this criteria" });
    }
    if (request.path === "/transactions/refund/") {
      const sale = transactions.get(form.transactionId ?? "");
      if (!sale || sale.txnType !== "SALE" || sale.responseType !== "SUCCESS") return send(200, { result: "ERROR", message: "Invalid transactionId" });
      const amount = Number(form.refundAmount);
      if (!(amount > 0) || amount > Number(sale.totalAmount) - sale.refunded + 1e-9) return send(200, { result: "ERROR", message: "Refund amount exceeds the amount available to refund" });
      const declined = orders.get(sale.orderId)?.card === "4000000000005126";
      const transactionId = `KT${++counter}`;
      transactions.set(transactionId, { transactionId, orderId: sale.orderId, custom1: form.custom1, txnType: "REFUND", responseType: declined ? "HARD_DECLINE" : "SUCCESS", totalAmount: amount.toFixed(2), currency: sale.currency, refunded: 0 });
      if (declined) return send(200, { result: "ERROR", message: "Refund declined by the processor" });
      sale.refunded += amount;
      return send(200, { result: "SUCCESS", message: { transactionId, orderId: sale.orderId, refundAmount: amount.toFixed(2) } });
    }
    if (request.path === "/upsale/import/") {
      const order = orders.get(form.orderId ?? "");
      if (!order) return send(200, { result: "ERROR", message: "Invalid orderId" });
      if (order.card === "4000000000000341") return send(200, { result: "ERROR", message: "Upsale declined" });
      const transactionId = `KT${++counter}`;
      transactions.set(transactionId, { transactionId, orderId: order.orderId, custom1: form.custom1, txnType: "SALE", responseType: "SUCCESS", totalAmount: form.productPrice ?? "0", currency: "USD", refunded: 0 });
      return send(200, { result: "SUCCESS", message: { orderId: order.orderId, transactionId } });
    }
    send(404, { result: "ERROR" });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
