// Browser (issue 34 item 1, issue 36 item 10): a card paid through /api/checkout/pay on a brand routed
// vault_gateway_a then vault_gateway_b; the first soft-declines it, the second approves. The order's
// page shows the card as "Visa •••• 1018" and both attempts: the declined first one is visible to the merchant.
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

describe.skipIf(NO_CHROMIUM)("an order's payment attempts in Chromium", () => {
  it("shows the card's brand and last four and the cascade's two attempts", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Petra Owner");
      const brandId = await page.evaluate(async () => {
        // The brand's card gateways in routing order (demo mode: no credentials needed).
        for (const provider of ["vault_gateway_a", "vault_gateway_b"]) {
          const saved = await fetch("/api/admin/settings", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ provider, settings: { webhookSecret: `whsec-e2e-${provider}-0123456789` } }) });
          if (saved.status !== 200) throw new Error(`settings answered ${saved.status}: ${await saved.text()}`);
        }
        const state = (await (await fetch("/api/admin/auth", { credentials: "same-origin" })).json()) as { session: { brandId: string } };
        return state.session.brandId;
      });
      const orderId = `e2e-attempts-${Date.now()}`;
      const claims = { orderId, amount: 2500, currency: "USD", productName: "Kettle", brandId };
      const init = await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider: "vault_gateway_a" });
      expect(init.status, JSON.stringify(init.body)).toBe(200);
      const paid = await api(stack.base, "/api/checkout/pay", {
        orderId,
        cardNumber: "4000000000001018",
        cardExpMonth: "12",
        cardExpYear: "2031",
        cardCvv: "123",
        customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
        billingAddress: { line1: "1 Main St", city: "Springfield", state: "IL", postalCode: "62701", country: "US" },
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body).toMatchObject({ provider: "vault_gateway_b", attempts: [{ provider: "vault_gateway_a", result: "declined" }, { provider: "vault_gateway_b", result: "approved" }] });
      const done = await api(stack.base, "/api/checkout/complete", {
        orderId,
        provider: paid.body.provider,
        transactionId: paid.body.transactionId,
        providerOrderId: paid.body.providerOrderId,
        customerEmail: "ada@example.com",
        customerName: "Ada Lovelace",
        amount: 2500,
        currency: "USD",
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);

      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      await detail.getByRole("heading", { name: `Order ${orderId}` }).waitFor();
      expect(await detail.getByTestId("order-card").textContent()).toBe("Visa •••• 1018");
      expect(await detail.textContent()).not.toContain("400000");
      const attempts = detail.getByRole("table", { name: "Payment attempts" });
      const rows = (await attempts.getByRole("row").allTextContents()).slice(1);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toContain("vault_gateway_a");
      expect(rows[0]).toContain("declined");
      expect(rows[0]).toContain("(soft)");
      expect(rows[0]).toContain("default");
      expect(rows[1]).toContain("vault_gateway_b");
      expect(rows[1]).toContain("approved");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "order-attempts");
    } finally {
      await page.close();
    }
  });
});
