import { sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of order_crm_b's API at the network boundary (tests) with loginId/password: leads,
 * order import (PREPAID records, CREDITCARD charges: 4000000000000002 declines), order and
 * transaction queries (by transactionId, or txnType and custom1), upsales (an order paid with
 * 4000000000000341 declines them), transaction refunds up to what is left (an order paid with
 * 4000000000005126 declines them; refunds, declined ones too, are transactions with the request's
 * custom1), campaign query. `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeOrderCrmB {
  baseUrl: string;
  loginId: string;
  password: string;
  requests: (FakeRequest & { form: Record<string, string> })[];
  transactions: Map<string, Record<string, any>>;
  failNext: FakeFailure;
  close(): Promise<void>;
}

export async function startFakeOrderCrmB(loginId = "crm-b-login", password = "crm-b-password-5678"): Promise<FakeOrderCrmB> {
  let counter = 0;
  const orders = new Map<string, { orderId: string; custom1: string; card: string }>();
  const transactions = new Map<string, Record<string, any>>();
  const fake: FakeOrderCrmB = { baseUrl: "", loginId, password, requests: [], transactions, failNext: null, close: async () => {} };
  const server = await startHttpFake((request, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    fake.requests.push({ ...request, form });
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { result: "ERROR" });
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("maintenance");
    }
    if (form.loginId !== loginId || form.password !== password) return sendJson(response, 200, { result: "ERROR", message: "Invalid login" });
    if (request.path === "/campaign/query/") return sendJson(response, 200, { result: "SUCCESS", message: { totalResults: 1, data: [] } });
    if (request.path === "/leads/import/") return sendJson(response, 200, { result: "SUCCESS", message: { orderId: `KL${(++counter).toString().padStart(6, "0")}` } });
    if (request.path === "/order/query/") {
      const paid = [...orders.values()].filter((o) => o.custom1 === form.custom1);
      return sendJson(response, 200, { result: "SUCCESS", message: { totalResults: paid.length, data: paid } });
    }
    if (request.path === "/order/import/") {
      const orderId = `KB${(++counter).toString().padStart(6, "0")}`;
      if (form.paySource !== "CREDITCARD") return sendJson(response, 200, { result: "SUCCESS", message: { orderId } });
      if (form.cardNumber === "4000000000000002") return sendJson(response, 200, { result: "ERROR", message: "This transaction has been declined" });
      let total = 0;
      for (let i = 1; form[`product${i}_id`]; i++) total += Number(form[`product${i}_price`]) * Number(form[`product${i}_qty`]);
      orders.set(orderId, { orderId, custom1: form.custom1 ?? "", card: form.cardNumber ?? "" });
      const transactionId = `KT${++counter}`;
      transactions.set(transactionId, { transactionId, orderId, custom1: form.custom1, txnType: "SALE", responseType: "SUCCESS", totalAmount: total.toFixed(2), currency: form.currency ?? "USD", refunded: 0 });
      return sendJson(response, 200, { result: "SUCCESS", message: { orderId, transactionId, totalAmount: total.toFixed(2) } });
    }
    if (request.path === "/transactions/query/") {
      const criteria = (["transactionId", "txnType", "custom1"] as const).filter((k) => form[k] !== undefined);
      const found = [...transactions.values()].filter((t) => criteria.every((k) => t[k] === form[k]));
      return found.length > 0 ? sendJson(response, 200, { result: "SUCCESS", message: { totalResults: found.length, data: found } }) : sendJson(response, 200, { result: "ERROR", message: "No transactions matching this criteria" });
    }
    if (request.path === "/transactions/refund/") {
      const sale = transactions.get(form.transactionId ?? "");
      if (!sale || sale.txnType !== "SALE" || sale.responseType !== "SUCCESS") return sendJson(response, 200, { result: "ERROR", message: "Invalid transactionId" });
      const amount = Number(form.refundAmount);
      if (!(amount > 0) || amount > Number(sale.totalAmount) - sale.refunded + 1e-9) return sendJson(response, 200, { result: "ERROR", message: "Refund amount exceeds the amount available to refund" });
      const declined = orders.get(sale.orderId)?.card === "4000000000005126";
      const transactionId = `KT${++counter}`;
      transactions.set(transactionId, { transactionId, orderId: sale.orderId, custom1: form.custom1, txnType: "REFUND", responseType: declined ? "HARD_DECLINE" : "SUCCESS", totalAmount: amount.toFixed(2), currency: sale.currency, refunded: 0 });
      if (declined) return sendJson(response, 200, { result: "ERROR", message: "Refund declined by the processor" });
      sale.refunded += amount;
      return sendJson(response, 200, { result: "SUCCESS", message: { transactionId, orderId: sale.orderId, refundAmount: amount.toFixed(2) } });
    }
    if (request.path === "/upsale/import/") {
      const order = orders.get(form.orderId ?? "");
      if (!order) return sendJson(response, 200, { result: "ERROR", message: "Invalid orderId" });
      if (order.card === "4000000000000341") return sendJson(response, 200, { result: "ERROR", message: "Upsale declined" });
      const transactionId = `KT${++counter}`;
      transactions.set(transactionId, { transactionId, orderId: order.orderId, custom1: form.custom1, txnType: "SALE", responseType: "SUCCESS", totalAmount: form.productPrice ?? "0", currency: "USD", refunded: 0 });
      return sendJson(response, 200, { result: "SUCCESS", message: { orderId: order.orderId, transactionId } });
    }
    sendJson(response, 404, { result: "ERROR" });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
