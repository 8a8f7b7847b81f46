// Browser (issue 17): an owner finds a buyer's order by email on the Orders page, opens it and sees
// its items and its upsell, refunds part of it, sees the timeline and exports the search as CSV; the next page of a long list. Axe finds no serious violation.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const CARD = { cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" };

/** A checkout of the brand paid at vault_gateway_b and completed, as a merchant's buyer does it. */
async function paidOrder(brandId: string, orderId: string, customerEmail: string, customerName: string): Promise<string> {
  const claims = { orderId, amount: 4999, currency: "EUR", productName: "Espresso kit", brandId };
  expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider: "vault_gateway_b" })).status).toBe(200);
  const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: 4999, currency: "EUR", ...CARD });
  const done = await api(stack.base, "/api/checkout/complete", {
    orderId,
    transactionId: paid.body.transactionId,
    provider: "vault_gateway_b",
    customerEmail,
    customerName,
    amount: 4999,
    currency: "EUR",
    lineItems: [{ id: "grinder", name: "Hand grinder", quantity: 1, unitPrice: 4999 }],
  });
  expect(done.status).toBe(200);
  return done.body.paymentMethodToken;
}

describe.skipIf(NO_CHROMIUM)("Orders page in Chromium", () => {
  it("finds an order by email, opens it with its items and upsell, refunds part of it, and pages through the list", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Olga Owner");
      const brandId = await page.evaluate(async () => {
        const state = (await (await fetch("/api/admin/auth", { credentials: "same-origin" })).json()) as { session: { brandId: string } };
        return state.session.brandId;
      });
      const stamp = Date.now();
      for (let i = 0; i < 26; i++) await paidOrder(brandId, `e2e-ord-${stamp}-${i}`, `buyer${i}@example.com`, `Buyer ${i}`);
      const token = await paidOrder(brandId, `e2e-ord-${stamp}-ada`, "ada.lovelace@example.com", "Ada Lovelace");
      const session = await api(stack.base, "/api/upsell/create-session", {
        orderId: `e2e-ord-${stamp}-ada-up`,
        originalOrderId: `e2e-ord-${stamp}-ada`,
        customerEmail: "ada.lovelace@example.com",
        paymentMethodToken: token,
        provider: "vault_gateway_b",
        offers: [{ id: "beans", name: "Two bags of beans", price: 1800 }],
      });
      expect((await api(stack.base, "/api/upsell/accept", { sessionId: session.body.sessionId, offerId: "beans" })).status).toBe(200);

      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      // 27 orders: a full page of 25, then the rest.
      await page.getByRole("button", { name: `Open order e2e-ord-${stamp}-ada`, exact: true }).waitFor();
      expect(await page.getByRole("button", { name: /^Open order / }).count()).toBe(25);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("button", { name: `Open order e2e-ord-${stamp}-0`, exact: true }).waitFor();
      expect(await page.getByRole("button", { name: /^Open order / }).count()).toBe(2);
      await page.getByRole("button", { name: "Previous" }).click();
      await page.getByRole("button", { name: `Open order e2e-ord-${stamp}-ada`, exact: true }).waitFor();

      await page.getByLabel("Search").fill("ADA.LOVE");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("button", { name: `Open order e2e-ord-${stamp}-25`, exact: true }).waitFor({ state: "detached" });
      expect(await page.getByRole("button", { name: /^Open order / }).count()).toBe(1);
      const row = page.getByRole("row", { name: /Ada Lovelace/ });
      expect(await row.textContent()).toContain("€49.99");
      expect(await row.textContent()).toContain("€18.00");

      await page.getByRole("button", { name: `Open order e2e-ord-${stamp}-ada`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      await detail.getByRole("heading", { name: `Order e2e-ord-${stamp}-ada` }).waitFor();
      expect(await detail.textContent()).toContain("Hand grinder");
      expect(await detail.getByRole("table", { name: "Upsells" }).textContent()).toContain(`e2e-ord-${stamp}-ada-up`);
      expect(await seriousViolations(page)).toEqual([]);

      // Refund part of the order's own payment; the detail then shows it and the status follows.
      const form = detail.getByRole("form", { name: "Refund" });
      await form.getByLabel("Amount (empty: all that is left)").fill("abc");
      await form.getByRole("button", { name: "Refund" }).click();
      await form.getByRole("alert").filter({ hasText: "Enter an amount" }).waitFor();
      await form.getByLabel("Amount (empty: all that is left)").fill("10.00");
      await form.getByLabel("Reason").selectOption("requested_by_customer");
      await form.getByRole("button", { name: "Refund" }).click();
      await form.getByRole("button", { name: "Confirm refund" }).click();
      await form.getByText("Refunded €10.00.").waitFor();
      const refunds = detail.getByRole("table", { name: "Refunds" });
      await refunds.waitFor();
      expect(await refunds.textContent()).toContain("€10.00");
      expect(await detail.textContent()).toContain("partially refunded");
      expect(await form.getByLabel("Charge").textContent()).toContain("€39.99 left");
      // The timeline: the order's events oldest first, the refund's last.
      const timeline = detail.getByRole("table", { name: "Timeline" });
      await timeline.getByRole("cell", { name: "refund.succeeded" }).waitFor();
      const events = await timeline.getByRole("row").allTextContents();
      expect(events.slice(1).map((text) => /(checkout\.\w+|payment\.\w+|order\.\w+|upsell\.\w+|refund\.\w+)/.exec(text)?.[1])).toEqual([
        "checkout.created",
        "checkout.completed",
        "payment.succeeded",
        "order.confirmed",
        "upsell.accepted",
        "refund.succeeded",
      ]);
      expect(await seriousViolations(page)).toEqual([]);

      // The export carries the search: Ada's order and its upsell only.
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
      const csv = readFileSync((await download.path())!, "utf8");
      expect(csv.startsWith("\uFEFFCreated (UTC),Order ID")).toBe(true);
      expect(csv.trim().split("\r\n").slice(1).map((line) => line.split(",")[1])).toEqual([`e2e-ord-${stamp}-ada`, `e2e-ord-${stamp}-ada-up`]);
      await screenshot(page, "orders-detail");
    } finally {
      await page.close();
    }
  });
});
