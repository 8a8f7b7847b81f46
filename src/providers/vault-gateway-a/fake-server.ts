import type { ServerResponse } from "node:http";
import { centsOf } from "../http-client.js";
import { startHttpFake, takeFailure, type FakeFailure } from "../../lib/testing/fake-http.js";

/**
 * A fake of the direct-post vault gateway at the network boundary, for tests: a real HTTP server on
 * 127.0.0.1 speaking transact.php and query.php. Card 4000000000000002 declines (response_code 200),
 * 4000000000009995 too with 202 (insufficient funds); a vault charge of a
 * vault created from 4000000000000341 declines; refunds of a sale paid with 4000000000005126 decline.
 * Sales stay `pendingsettlement` (voidable, whole) until `settle` makes them `complete` (refundable,
 * in parts). A void cancels the sale itself (its answer names the sale); a refund, declined or not, is
 * a transaction of its own with the request's `orderid`, found by query.php `order_id` (with
 * `action_type`). `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeVaultGateway {
  baseUrl: string;
  securityKey: string;
  /** Every request's form, in order (for "what did we send" checks). */
  requests: { path: string; form: Record<string, string> }[];
  transactions: Map<string, FakeSale>;
  failNext: FakeFailure;
  /** Answers every call this many ms late (a slow gateway); 0: at once. */
  delayMs: number;
  /** Card numbers this gateway declines (a cascade test's first gateway declines a card the second takes). */
  declineCards: Set<string>;
  /** The nightly settlement of one sale: `pendingsettlement` → `complete`. */
  settle(transactionId: string): void;
  close(): Promise<void>;
}

interface FakeSale {
  actionType: "sale" | "refund";
  orderId: string;
  amount: string;
  currency: string;
  vaultId: string;
  success: boolean;
  condition: "pendingsettlement" | "complete" | "canceled" | "failed";
  refundedCents: number;
  refundDeclines: boolean;
  responseText: string;
}

export async function startFakeVaultGateway(securityKey = "fake-security-key-0001"): Promise<FakeVaultGateway> {
  let counter = 0;
  const vaultCards = new Map<string, string>();
  const fake: FakeVaultGateway = {
    baseUrl: "",
    securityKey,
    requests: [],
    transactions: new Map(),
    failNext: null,
    delayMs: 0,
    declineCards: new Set(["4000000000000002", "4000000000009995"]),
    settle(transactionId) {
      fake.transactions.get(transactionId)!.condition = "complete";
    },
    close: async () => {},
  };
  const reply = (response: ServerResponse, text: string) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(text);
  };
  /** type=refund (a settled sale, up to what is left of it) and type=void (an unsettled sale, whole). */
  function refundOrVoid(form: Record<string, string>, response: ServerResponse) {
    const saleId = form.transactionid ?? "";
    const sale = fake.transactions.get(saleId);
    if (!sale || !sale.success || sale.actionType !== "sale") return reply(response, "response=3&responsetext=Transaction+not+found&response_code=300");
    if (form.type === "void") {
      if (sale.condition !== "pendingsettlement") return reply(response, "response=3&responsetext=Only+unsettled+transactions+can+be+voided&response_code=300");
      sale.condition = "canceled";
      return reply(response, `response=1&responsetext=Transaction+Void+Successful&transactionid=${saleId}&response_code=100`);
    }
    const cents = centsOf(form.amount ?? "");
    if (!(cents > 0) || cents > centsOf(sale.amount) - sale.refundedCents) return reply(response, "response=3&responsetext=Refund+amount+may+not+exceed+the+transaction+balance&response_code=300");
    const transactionId = String(1_000_000 + ++counter);
    const declined = sale.refundDeclines;
    const responseText = declined ? "Refund declined" : "SUCCESS";
    fake.transactions.set(transactionId, { ...sale, actionType: "refund", orderId: form.orderid ?? "", amount: form.amount!, success: !declined, condition: declined ? "failed" : "pendingsettlement", refundedCents: 0, responseText });
    if (!declined) sale.refundedCents += cents;
    return reply(response, `response=${declined ? 2 : 1}&responsetext=${encodeURIComponent(responseText)}&transactionid=${transactionId}&response_code=${declined ? 200 : 100}`);
  }

  const server = await startHttpFake((request, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    fake.requests.push({ path: request.path, form });
    if (fake.delayMs > 0) setTimeout(() => answer(request.path, form, response), fake.delayMs);
    else answer(request.path, form, response);
  });
  function answer(path: string, form: Record<string, string>, response: ServerResponse) {
    const mode = takeFailure(fake);
    if (mode) {
      response.writeHead(mode === "500" ? 500 : 200, { "content-type": "text/plain" });
      return response.end(mode === "500" ? "Internal Server Error" : "<html>not what you expected");
    }
    if (form.security_key !== securityKey) {
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("response=3&responsetext=Authentication+Failed&response_code=300");
    }
    if (path === "/api/transact.php" && (form.type === "refund" || form.type === "void")) return refundOrVoid(form, response);
    if (path === "/api/transact.php") {
      const transactionId = String(1_000_000 + ++counter);
      let vaultId = form.customer_vault_id ?? "";
      let card = vaultId ? vaultCards.get(vaultId) : form.ccnumber;
      if (!card) {
        response.writeHead(200, { "content-type": "text/plain" });
        return response.end("response=3&responsetext=Invalid+Customer+Vault+Id&response_code=300");
      }
      // 4000000000009995 declines with the wire's insufficient-funds code (202), the others with 200 (declined).
      const declineCode = card === "4000000000009995" ? "202" : "200";
      const declined = fake.declineCards.has(card) || (Boolean(form.customer_vault_id) && card === "4000000000000341");
      if (!declined && form.customer_vault === "add_customer") {
        vaultId = `cv${counter}`;
        vaultCards.set(vaultId, card);
      }
      fake.transactions.set(transactionId, {
        actionType: "sale",
        orderId: form.orderid ?? "",
        amount: form.amount ?? "0",
        currency: form.currency ?? "USD",
        vaultId,
        success: !declined,
        condition: declined ? "failed" : "pendingsettlement",
        refundedCents: 0,
        refundDeclines: card === "4000000000005126",
        responseText: declined ? "DECLINE" : "SUCCESS",
      });
      card = "";
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end(
        declined
          ? `response=2&responsetext=DECLINE&transactionid=${transactionId}&response_code=${declineCode}`
          : `response=1&responsetext=SUCCESS&transactionid=${transactionId}&customer_vault_id=${vaultId}&response_code=100`,
      );
    }
    if (path === "/api/query.php") {
      const found = [...fake.transactions.entries()].filter(
        ([id, t]) => (form.transaction_id === undefined || id === form.transaction_id) && (form.order_id === undefined || t.orderId === form.order_id) && (form.action_type === undefined || t.actionType === form.action_type),
      );
      response.writeHead(200, { "content-type": "text/xml" });
      const xml = found.map(
        ([id, t]) =>
          `<transaction><transaction_id>${id}</transaction_id><order_id>${t.orderId}</order_id>` +
          `<condition>${t.condition}</condition><currency>${t.currency.toLowerCase()}</currency><customerid>${t.vaultId}</customerid>` +
          `<action><amount>${t.amount}</amount><action_type>${t.actionType}</action_type><success>${t.success ? 1 : 0}</success><response_text>${t.responseText}</response_text></action></transaction>`,
      );
      return response.end(`<?xml version="1.0"?><nm_response>${xml.join("")}</nm_response>`);
    }
    response.writeHead(404).end();
  }
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
