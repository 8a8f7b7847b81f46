// Browser (issue 33, CONTRACT §39): the back office's Live/Test switch changes the orders list, shows
// the TEST banner while test data is on screen, and is remembered by the browser. Axe finds no serious violation.
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

describe.skipIf(NO_CHROMIUM)("Live/Test switch in Chromium", () => {
  it("shows the demo-paid order under Test with the banner, none under Live, and remembers the choice", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Tess Tester");
      const brandId = await page.evaluate(async () => {
        const state = (await (await fetch("/api/admin/auth", { credentials: "same-origin" })).json()) as { session: { brandId: string } };
        return state.session.brandId;
      });
      const orderId = `e2e-mode-${Date.now()}`;
      expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken({ orderId, amount: 1500, currency: "USD", productName: "Mug", brandId }), provider: "vault_gateway_b" })).status).toBe(200);
      const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: 1500, currency: "USD", ...CARD });
      const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: paid.body.transactionId, provider: "vault_gateway_b", customerEmail: "tess@example.com", customerName: "Tess", amount: 1500, currency: "USD" });
      expect(done.status).toBe(200);

      // A brand without real credentials shows test data by default: the order, with the banner.
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).waitFor();
      await page.getByTestId("test-banner").waitFor();
      expect(await page.getByRole("radio", { name: "Test" }).isChecked()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("radio", { name: "Live" }).check();
      await page.getByText("No orders match.").waitFor();
      await page.getByTestId("test-banner").waitFor({ state: "detached" });
      expect(await page.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toContain("livemode=true");

      // Remembered by this browser: a reload stays on Live.
      await page.reload();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      await page.getByText("No orders match.").waitFor();
      expect(await page.getByRole("radio", { name: "Live" }).isChecked()).toBe(true);

      await page.getByRole("radio", { name: "Test" }).check();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).waitFor();
      await page.getByTestId("test-banner").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "modes");
    } finally {
      await page.close();
    }
  });
});
