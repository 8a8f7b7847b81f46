// Browser (issue 36, merchants): what a merchant walking the back office in Chromium tripped over.
// Refunds ask first and refund once; webhook deliveries show each attempt's bodies and resend; orders
// have their own URL and show addresses and the card's brand and last four; stats name offers; no
// page scrolls sideways on a phone; and the smaller ones (item 14).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
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
async function paidOrder(brandId: string, orderId: string, extra: Record<string, unknown> = {}): Promise<void> {
  const claims = { orderId, amount: 4999, currency: "EUR", productName: "Espresso kit", brandId, ...extra };
  expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider: "vault_gateway_b" })).status).toBe(200);
  const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: 4999, currency: "EUR", ...CARD });
  expect(paid.status).toBe(200);
  const done = await api(stack.base, "/api/checkout/complete", {
    orderId,
    transactionId: paid.body.transactionId,
    provider: "vault_gateway_b",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: 4999,
    currency: "EUR",
  });
  expect(done.status).toBe(200);
}

const brandOf = (page: Page) =>
  page.evaluate(async () => ((await (await fetch("/api/admin/auth", { credentials: "same-origin" })).json()) as { session: { brandId: string } }).session.brandId);

/** An admin GET from inside the page (its session cookie). */
const adminGet = (page: Page, path: string): Promise<any> => page.evaluate(async (p) => (await fetch(p, { credentials: "same-origin" })).json(), path);

describe.skipIf(NO_CHROMIUM)("issue 36: the merchant's pages in Chromium", () => {
  it("item 8: a refund is confirmed first, naming amount and charge; a double click refunds once; the amount is cleared", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Rita Refunder");
      const orderId = `i36-refund-${Date.now()}`;
      await paidOrder(await brandOf(page), orderId);
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      const form = detail.getByRole("form", { name: "Refund" });
      await form.getByLabel("Amount (empty: all that is left)").fill("12.50");
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      // Nothing is refunded yet: the question names the amount and the charge.
      expect(await form.getByTestId("refund-question").textContent()).toBe(`Refund €12.50 of charge ${orderId} to the buyer? This cannot be undone.`);
      expect(await seriousViolations(page)).toEqual([]);
      const listed = await adminGet(page, `/api/admin/orders?q=${orderId}&livemode=false`);
      const ref = listed.orders[0].id as string;
      expect((await adminGet(page, `/api/admin/orders/${ref}`)).refunds).toEqual([]);
      // Cancel asks nothing of the provider.
      await form.getByRole("button", { name: "Cancel" }).click();
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      // Two quick clicks on the confirmation: one refund.
      await form.getByRole("button", { name: "Confirm refund" }).dblclick();
      await form.getByText("Refunded €12.50.").waitFor();
      await detail.getByRole("table", { name: "Refunds" }).waitFor();
      expect(await detail.getByRole("table", { name: "Refunds" }).getByRole("row").count()).toBe(2); // header + one refund
      expect(await form.getByLabel("Amount (empty: all that is left)").inputValue()).toBe("");
      expect(await form.getByRole("button", { name: "Confirm refund" }).count()).toBe(0);
      const full = await adminGet(page, `/api/admin/orders/${ref}`);
      expect(full.refunds.map((r: { amount: number }) => r.amount)).toEqual([1250]);
      await screenshot(page, "i36-refund");
    } finally {
      await page.close();
    }
  });
});
