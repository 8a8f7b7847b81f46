// Card numbers and CVVs never reach a log line or a table (CONTRACT §15), even at trace level and
// even when a payment is declined or refused by validation.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { LOG_LEVEL: "trace" } });
});
afterAll(() => t.close());

const CARDS = ["4242424242424242", "4000000000000002", "4000000000000341"];
const CVV = "9876";
const card = (cardNumber: string) => ({ cardNumber, cardExpMonth: "12", cardExpYear: "2031", cardCvv: CVV });
const customer = { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" };
const address = { line1: "1 Main St", city: "London", state: "LDN", postalCode: "N1 1AA", country: "GB" };
const post = (url: string, payload: object) => t.app.inject({ method: "POST", url, payload });

async function everyTableAsText(): Promise<string> {
  const tables = await t.deps.database.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public'`);
  const dumps: string[] = [];
  for (const row of tables.rows as { table_name: string }[]) {
    const rows = await t.deps.database.db.execute(sql.raw(`select * from "${row.table_name}"`));
    dumps.push(JSON.stringify(rows.rows));
  }
  return dumps.join("\n");
}

describe("card data", () => {
  it("is neither logged nor stored after payments on every card-taking endpoint", async () => {
    for (const [i, cardNumber] of CARDS.entries()) {
      const orderId = `sec-${i}`;
      await post("/api/providers/vault_gateway_a/process-payment", { orderId: `${orderId}-a`, amount: 1000, currency: "USD", ...card(cardNumber) });
      await post("/api/providers/vault_gateway_b/process-payment", { orderId: `${orderId}-b`, amount: 1000, ...card(cardNumber) });
      await post("/api/providers/order_crm_b/process-payment", { orderId: `${orderId}-c`, campaignId: "1", customer, billingAddress: address, lineItems: [{ productId: "p", quantity: 1, price: 1000 }], ...card(cardNumber) });
      const crm = await post("/api/providers/order_crm_a/create-order", { orderId: `${orderId}-d`, customer, shippingAddress: address, billingAddress: address, lineItems: [{ productId: "p", quantity: 1, price: 1000 }], total: 1000, currency: "USD" });
      await post("/api/providers/order_crm_a/process-payment", { crmAOrderId: json(crm).crmAOrderId, orderId: `${orderId}-d`, ...card(cardNumber) });
      const cart = await post("/api/providers/cart_gateway/create-cart", { orderId: `${orderId}-e`, customer, shippingAddress: address, lineItems: [{ itemId: "i", quantity: 1, price: 1000 }] });
      await post("/api/providers/cart_gateway/process-payment", { cartOrderId: json(cart).cartOrderId, orderId: `${orderId}-e`, ...card(cardNumber) });
      await post("/api/providers/intent_gateway/create-intent", { orderId: `${orderId}-f`, amount: 1000, currency: "USD", ...card(cardNumber) });
    }
    // Validation refusals must not echo the number either.
    await post("/api/providers/vault_gateway_b/process-payment", { orderId: "sec-bad", amount: 1000, ...card("4242424242424241") });

    const logs = t.logs.join("");
    const tables = await everyTableAsText();
    expect(logs.length).toBeGreaterThan(0);
    for (const number of [...CARDS, "4242424242424241"]) {
      expect(logs).not.toContain(number);
      expect(tables).not.toContain(number);
    }
    // The CVV as a value (quoted, as JSON carries it): four bare digits also occur in ids (a request
    // id `…-2a55098767a6` failed the unquoted check in CI) and in durations.
    expect(logs).not.toContain(`"${CVV}"`);
    expect(tables).not.toContain(`"${CVV}"`);
    expect(logs).not.toMatch(new RegExp(`cvv[^,}]{0,20}${CVV}`, "i"));
  });
});
