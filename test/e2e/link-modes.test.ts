// Browser (issue 33): the payment-links page makes its links in the mode the Live/Test switch shows.
// On a brand with live credentials (a fake gateway at the network boundary) the page shows Live by
// default; with the switch on Test, the quick one-hour link makes a test checkout: the buyer pays
// with the demo card, the gateway never hears of it, and the order is listed under Test, not Live;
// a payment link made then is listed as a test link.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeIntentGateway, type FakeIntentGateway } from "../../src/providers/intent-gateway/fake-server.js";
import { api, NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
let fake: FakeIntentGateway;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  // The fake gateway listens on 127.0.0.1: the server may reach it (and save it as a setting).
  [stack, fake] = await Promise.all([startStack({ ALLOW_PRIVATE_WEBHOOK_URLS: "true" }), startFakeIntentGateway()]);
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

describe.skipIf(NO_CHROMIUM)("links follow the Live/Test switch in Chromium", () => {
  it("the quick link made while the switch shows Test makes a test checkout on a brand with live credentials", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Quinn Quicklink");
      // Live credentials and a salesperson, as the settings and salespeople pages would save them.
      const saved = await page.evaluate(async (fakeGateway) => {
        const post = async (url: string, body: unknown) => {
          const res = await fetch(url, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
          return { status: res.status, body: await res.json() };
        };
        const settings = await post("/api/admin/settings", { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fakeGateway.secretKey, baseUrl: fakeGateway.baseUrl } });
        const seller = await post("/api/admin/salespeople", { name: "Sam Seller", email: `sam-${Date.now()}@example.com`, password: "a-long-portal-password" });
        return { settings: settings.status, seller: seller.status };
      }, { secretKey: fake.secretKey, baseUrl: fake.baseUrl });
      expect(saved).toEqual({ settings: 200, seller: 200 });
      // The dashboard learnt the brand's mode (test) before the credentials: a new visit learns it again.
      await page.reload();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Payment links" }).click();
      await page.getByRole("heading", { name: "Payment links" }).waitFor();
      // The brand has live credentials: Live is shown until the switch is used.
      await page.getByText("No payment links yet.").waitFor();
      expect(await page.getByRole("radio", { name: "Live" }).isChecked()).toBe(true);
      await page.getByRole("radio", { name: "Test" }).check();
      await page.getByTestId("test-banner").waitFor();

      const quick = page.getByRole("form", { name: "Quick link" });
      await quick.getByLabel("Salesperson", { exact: true }).selectOption({ label: "Sam Seller" });
      await quick.getByLabel("Product name", { exact: true }).fill("Coaching call");
      await quick.getByLabel("Price", { exact: true }).fill("25");
      await quick.getByRole("button", { name: "Generate link" }).click();
      const url = (await page.getByTestId("generated-link").textContent())!;
      expect(url).toMatch(/\/c\/[A-Za-z0-9_-]+$/);
      expect(await page.getByTestId("generated-link-mode").textContent()).toContain("test mode");
      const orderId = (await page.getByTestId("generated-link-mode").textContent())!.match(/Order (\S+),/)![1]!;
      // A payment link made now is a test link too: the list says so.
      const form = page.getByRole("form", { name: "New payment link" });
      await form.getByLabel("Product name").fill("Tea sampler");
      await form.getByLabel("Price per unit").fill("15.50");
      await form.getByRole("button", { name: "Create payment link" }).click();
      await page.getByRole("cell", { name: "Tea sampler", exact: true }).waitFor();
      await page.getByRole("cell", { name: "test", exact: true }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "link-modes");

      // The buyer's checkout at the brand's provider (intent_gateway; the hosted page's default provider
      // is not enabled on this brand, so the buyer's steps are taken through the same API): a test
      // checkout, paid with the demo card; the gateway is never called.
      const seen = fake.requests.length;
      const opened = await fetch(url.replace(/^https?:\/\/[^/]+/, stack.base), { redirect: "manual" });
      expect(opened.status).toBe(302);
      const token = opened.headers.get("location")!.replace("/checkout/", "");
      const init = await api(stack.base, "/api/checkout/initialize", { token, provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
      expect(init.status).toBe(200);
      expect(init.body).toMatchObject({ demo: true, providerOrderId: expect.stringMatching(/^pi_demo/) });
      const intentId = init.body.providerOrderId as string;
      const confirmed = await api(stack.base, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId, cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" });
      expect(confirmed.status).toBe(200);
      const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: 2500, currency: "USD" });
      expect(done.status).toBe(200);
      expect(fake.requests.length).toBe(seen);

      // The order is test data: listed under Test, absent under Live.
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).waitFor();
      await page.getByRole("radio", { name: "Live" }).check();
      await page.getByText("No orders match.").waitFor();
    } finally {
      await page.close();
    }
  });
  it("opens on Test for a brand with live credentials whose orders are all test orders (issue 36 item 14; the first live order: src/payments/shown-mode.test.ts)", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Tessa Testorders");
      const post = (url: string, body: unknown) =>
        page.evaluate(async ([u, b]) => {
          const res = await fetch(u as string, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(b) });
          return { status: res.status, body: await res.json() };
        }, [url, body] as const);
      expect((await post("/api/admin/settings", { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } })).status).toBe(200);
      await page.reload();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      // Live credentials and no order yet: Live.
      await page.getByRole("radio", { name: "Live", checked: true }).waitFor();

      // A test sale through a test payment link (the buyer's steps through the checkout API).
      const made = await post("/api/admin/payment-links", { productName: "Sample", price: 700, currency: "usd", mode: "test" });
      expect(made.status).toBe(200);
      const opened = await fetch(`${stack.base}${new URL((made.body as { link: { url: string } }).link.url).pathname}`, { redirect: "manual" });
      const token = opened.headers.get("location")!.replace("/checkout/", "");
      const { orderId } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { orderId: string };
      const init = await api(stack.base, "/api/checkout/initialize", { token, provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
      expect(init.status).toBe(200);
      const intentId = init.body.providerOrderId as string;
      expect((await api(stack.base, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId, cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" })).status).toBe(200);
      const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: 700, currency: "USD" });
      expect(done.status).toBe(200);

      // A new visit, no choice made: the dashboard opens on Test, where the order is, not on "Real money" with zeros.
      await page.reload();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await page.getByRole("radio", { name: "Test", checked: true }).waitFor();
      await page.getByTestId("test-banner").waitFor();
      expect(await page.evaluate(() => localStorage.getItem("checkout.admin.livemode"))).toBeNull();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
