// Browser: a customer pays on /checkout/<token> with the demo card, lands on the merchant's
// successUrl, which starts an upsell session; accepts the offer, declines the next one and its
// downsell, and ends on /success. Then a declined card, and the expired and invalid token pages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, PRODUCT_SVG, screenshot, startMerchant, startStack, type Stack } from "./support.js";

let stack: Stack;
let merchant: Awaited<ReturnType<typeof startMerchant>>;
/** What the merchant's success page saw and did. */
const seen: { query?: Record<string, string>; paymentMethodToken?: string; sessionId?: string } = {};

const OFFERS = [
  { id: "care-plan", name: "Two-year care plan", description: "Repairs and replacement for two years.", price: 1500, originalPrice: 2500 },
  { id: "refill", name: "Refill pack", price: 2000, originalPrice: 2400, downsell: { id: "refill-mini", name: "Mini refill pack", price: 900 } },
];

beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
  merchant = await startMerchant(async (_req, res, url) => {
    if (url.pathname === "/kit.svg") {
      res.setHeader("content-type", "image/svg+xml");
      return void res.end(PRODUCT_SVG);
    }
    if (url.pathname === "/thanks" && url.searchParams.has("transactionId")) {
      // The merchant's server: fetch the saved payment method, offer upsells, send the customer there.
      seen.query = Object.fromEntries(url.searchParams);
      const token = await api(stack.base, "/api/checkout/get-payment-token", { provider: url.searchParams.get("provider"), transactionId: url.searchParams.get("transactionId") });
      seen.paymentMethodToken = token.body.paymentMethodToken;
      const orderId = url.searchParams.get("orderId")!;
      const created = await api(stack.base, "/api/upsell/create-session", {
        orderId: `${orderId}-upsell`,
        originalOrderId: orderId,
        customerEmail: "ada@example.com",
        paymentMethodToken: token.body.paymentMethodToken,
        provider: url.searchParams.get("provider"),
        offers: OFFERS,
      });
      seen.sessionId = created.body.sessionId;
      res.writeHead(302, { location: `${stack.base}/upsell/${created.body.sessionId}` });
      return void res.end();
    }
    // The end of the upsell flow comes back to successUrl without the checkout's parameters.
    res.writeHead(302, { location: `${stack.base}/success` });
    res.end();
  });
});
afterAll(async () => {
  await merchant?.close();
  await stack?.close();
});

const claims = (orderId: string) => ({
  orderId,
  amount: 4999,
  currency: "EUR",
  productName: "Espresso starter kit",
  productDescription: "Grinder, tamper and two bags of beans.",
  productImage: `${merchant.url}/kit.svg`,
  customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
  shippingAddress: { address1: "12 Analytical St", city: "London", state: "LDN", postalCode: "N1 9GU", country: "GB" },
  successUrl: `${merchant.url}/thanks`,
});

async function fillCard(page: import("playwright-core").Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry month (MM)").fill("12");
  await page.getByLabel("Expiry year (YYYY)").fill("2031");
  await page.getByLabel("Security code").fill("123");
}

describe.skipIf(NO_CHROMIUM)("checkout and upsell pages in Chromium", () => {
  it("pays with the demo card, accepts an upsell, declines the next offer and its downsell, ends on /success", async () => {
    const orderId = `e2e-${Date.now()}`;
    const page = await stack.browser.newPage({ locale: "en-GB" });
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(orderId))}`);
      await page.getByRole("heading", { name: "Espresso starter kit" }).waitFor();
      // Intl.NumberFormat for the token's currency, in the browser's locale.
      expect(await page.getByTestId("price").textContent()).toBe("€49.99");
      // Pre-filled from the token.
      expect(await page.getByLabel("Email").inputValue()).toBe("ada@example.com");
      expect(await page.getByLabel("Address", { exact: true }).inputValue()).toBe("12 Analytical St");
      expect(await page.getByLabel("Postal code").inputValue()).toBe("N1 9GU");
      await fillCard(page, "4242 4242 4242 4242");
      await page.getByRole("button", { name: "Pay €49.99" }).click();

      // Merchant's successUrl → the first offer.
      await page.getByTestId("offer-name").filter({ hasText: "Two-year care plan" }).waitFor();
      expect(page.url()).toBe(`${stack.base}/upsell/${seen.sessionId}`);
      expect(seen.query).toMatchObject({ orderId, provider: "vault_gateway_b" });
      expect(await page.getByTestId("offer-price").textContent()).toBe("€15.00");
      expect(await page.getByText("You save €10.00").count()).toBe(1);
      // A countdown to expiresAt (30 minutes after creation): m:ss, never more than 30:00.
      const [minutes, seconds] = (await page.getByRole("timer").textContent())!.split(":").map(Number);
      expect(minutes * 60 + seconds).toBeGreaterThan(0);
      expect(minutes * 60 + seconds).toBeLessThanOrEqual(30 * 60);
      await page.getByRole("button", { name: /Yes, add it/ }).click();

      await page.getByTestId("offer-name").filter({ hasText: "Refill pack" }).waitFor();
      await page.getByRole("button", { name: "No, thanks" }).click();
      await page.getByTestId("offer-name").filter({ hasText: "Mini refill pack" }).waitFor();
      await page.getByRole("button", { name: "No, thanks" }).click();

      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/success");
      await screenshot(page, "checkout-upsell-success");
    } finally {
      await page.close();
    }

    // The orders, through the API: the checkout is completed (a replay returns its first result),
    // the saved method is the one the merchant got, and the session charged exactly the accepted offer.
    const token = await api(stack.base, "/api/checkout/get-payment-token", { provider: "vault_gateway_b", transactionId: seen.query!.transactionId });
    expect(token).toMatchObject({ status: 200, body: { success: true, paymentMethodToken: seen.paymentMethodToken } });
    const replay = await api(stack.base, "/api/checkout/complete", {
      orderId,
      transactionId: seen.query!.transactionId,
      provider: "vault_gateway_b",
      customerEmail: "ada@example.com",
      customerName: "Ada Lovelace",
      amount: 4999,
      currency: "EUR",
    });
    expect(replay).toMatchObject({ status: 200, body: { success: true, orderId, transactionId: seen.query!.transactionId } });
    const session = await api(stack.base, `/api/upsell/session/${seen.sessionId}`);
    expect(session.body.session).toMatchObject({ status: "completed", acceptedOffers: ["care-plan"], declinedOffers: ["refill", "refill-mini"], totalUpsellAmount: 1500 });
  });

  it.each(["intent_gateway", "cart_gateway", "order_crm_a", "vault_gateway_a"])("the token's provider %s: pays with the demo card and lands on /success", async (provider) => {
    const orderId = `e2e-${provider}-${Date.now()}`;
    const page = await stack.browser.newPage();
    try {
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider })}`);
      await fillCard(page, "4242424242424242");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      const query = new URL(page.url()).searchParams;
      expect(Object.fromEntries(query)).toMatchObject({ orderId, provider });
      expect(await page.getByTestId("order-id").textContent()).toBe(orderId);
      const token = await api(stack.base, "/api/checkout/get-payment-token", { provider, transactionId: query.get("transactionId") });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
    } finally {
      await page.close();
    }
  });

  it("hosted_store: the page sends the customer to the store's checkoutUrl from initialize", async () => {
    const page = await stack.browser.newPage();
    try {
      // The demo store's page is not part of this service: stand in for it in the browser.
      await page.route("**/demo/hosted-store/**", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Hosted store</title><h1>Hosted store</h1>" }));
      const orderId = `e2e-hosted-${Date.now()}`;
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider: "hosted_store" })}`);
      await page.getByRole("heading", { name: "Hosted store" }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/demo\/hosted-store\/hs_ord_/);
    } finally {
      await page.close();
    }
  });

  it("a declined card shows the API's message and keeps what was typed; another card then pays, each attempt with its own Idempotency-Key", async () => {
    const page = await stack.browser.newPage();
    const attemptKeys: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/providers/")) attemptKeys.push(request.headers()["idempotency-key"] ?? "");
    });
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-decline-${Date.now()}`))}`);
      await page.getByLabel("Phone (optional)").fill("+44 20 7946 0000");
      await fillCard(page, "4000 0000 0000 0002");
      await page.getByRole("button", { name: /^Pay / }).click();
      const alert = page.getByTestId("checkout-error");
      await alert.filter({ hasText: "declined" }).waitFor();
      expect(await alert.textContent()).toBe("Your card was declined. (Payment failed: card_declined)");
      // Focus moved to the message, and nothing typed was lost.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }).document.activeElement.getAttribute("data-testid"))).toBe("checkout-error");
      expect(await page.getByLabel("Phone (optional)").inputValue()).toBe("+44 20 7946 0000");
      expect(await page.getByLabel("Card number").inputValue()).toBe("4000 0000 0000 0002");
      expect(await page.getByRole("button", { name: /^Pay / }).isEnabled()).toBe(true);
      await screenshot(page, "checkout-declined");

      // CONTRACT §37: after a decline a new attempt is allowed; CONTRACT §17: each attempt sends its own key.
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByRole("button", { name: /^Pay / }).click();
      await page.waitForURL(/\/upsell\//);
      expect(attemptKeys).toHaveLength(2);
      expect(attemptKeys.every((key) => key.length > 0)).toBe(true);
      expect(attemptKeys[0]).not.toBe(attemptKeys[1]);
    } finally {
      await page.close();
    }
  });

  it("a card the API refuses as invalid marks the field it names", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-invalid-${Date.now()}`))}`);
      await fillCard(page, "4242424242424242");
      await page.getByLabel("Expiry year (YYYY)").fill("2020");
      await page.getByRole("button", { name: /^Pay / }).click();
      await page.getByTestId("checkout-error").filter({ hasText: "Invalid request" }).waitFor();
      expect(await page.getByLabel("Expiry year (YYYY)").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("Card number").getAttribute("aria-invalid")).toBeNull();
    } finally {
      await page.close();
    }
  });

  it("an expired token, a forged token and a malformed link each show a clear page", async () => {
    const page = await stack.browser.newPage();
    try {
      const expired = await checkoutToken(claims("e2e-expired"), { now: Date.now() - 2 * 3600_000, lifetimeSeconds: 3600 });
      await page.goto(`${stack.base}/checkout/${expired}`);
      await page.getByRole("heading", { name: "This checkout link has expired" }).waitFor();
      expect(await page.getByRole("button").count()).toBe(0);

      const [header, payload] = (await checkoutToken(claims("e2e-forged"))).split(".");
      await page.goto(`${stack.base}/checkout/${header}.${payload}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
      await page.getByRole("heading", { name: "This checkout link is not valid or has expired" }).waitFor();

      await page.goto(`${stack.base}/checkout/not-a-token`);
      await page.getByRole("heading", { name: "This checkout link is not valid" }).waitFor();
      await page.goto(`${stack.base}/checkout/${expired}`);
      await page.getByRole("heading", { name: "This checkout link has expired" }).waitFor();
      await screenshot(page, "checkout-expired");
    } finally {
      await page.close();
    }
  });
});
