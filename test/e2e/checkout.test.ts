// Browser: a customer pays on /checkout/<token> with the demo card, lands on the merchant's
// successUrl, which starts an upsell session; accepts the offer, declines the next one and its
// downsell, and ends on /success. Then every provider from the hosted page (hosted_store through the
// demo store's page), 3-D Secure approve and fail, a declined card, field errors, the card form, the
// order summary and cancel link, a failed initialize and its retry, and the expired and invalid token pages.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, PRODUCT_SVG, screenshot, seriousViolations, startMerchant, startStack, type Stack } from "./support.js";

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
  // The demo store's and the demo bank's pages are absolute URLs under PUBLIC_BASE_URL, which must
  // therefore be this server's own address: a free port is picked first.
  const port = await freePort();
  stack = await startStack({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
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

/** A port no one listens on right now (the server takes it a moment later). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
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
  await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
  await page.getByLabel("Security code").fill("123");
}

/** The document's focused element's attribute (the page runs in the browser, not in Node). */
const focusedAttribute = (page: import("playwright-core").Page, name: string) =>
  page.evaluate((n) => (globalThis as unknown as { document: { activeElement: { getAttribute(a: string): string | null } } }).document.activeElement.getAttribute(n), name);

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
      expect(await page.getByLabel("Postcode", { exact: true }).inputValue()).toBe("N1 9GU");
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

  it.each(["intent_gateway", "cart_gateway", "order_crm_a", "order_crm_b", "vault_gateway_a", "vault_gateway_b"])("the token's provider %s: pays with the demo card and lands on /success", async (provider) => {
    const orderId = `e2e-${provider}-${Date.now()}`;
    const page = await stack.browser.newPage();
    try {
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider })}`);
      // initialize answered demo: the test cards are named.
      await page.getByTestId("demo-hint").waitFor();
      expect(await page.getByText("This page cannot take payments").count()).toBe(0);
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

  it("hosted_store: the customer pays on the demo store's page and comes back; the checkout completes", async () => {
    const page = await stack.browser.newPage();
    try {
      const orderId = `e2e-hosted-${Date.now()}`;
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider: "hosted_store" })}`);
      // No card fields here: the store takes the card on its own page.
      expect(await page.getByLabel("Card number").count()).toBe(0);
      await page.getByRole("button", { name: "Continue to payment (€49.99)" }).click();
      await page.getByRole("heading", { name: "Pay your order" }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/demo\/hosted-store\/hs_ord_/);
      expect(await page.getByTestId("store-amount").textContent()).toBe("€49.99");
      expect(await seriousViolations(page)).toEqual([]);
      // A declined card stays on the store's page with a sentence.
      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      await page.getByLabel("Expiry (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByText("Your card was declined. Try another card.").waitFor();
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByLabel("Expiry (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      const query = new URL(page.url()).searchParams;
      expect(Object.fromEntries(query)).toMatchObject({ orderId, provider: "hosted_store" });
      const token = await api(stack.base, "/api/checkout/get-payment-token", { provider: "hosted_store", transactionId: query.get("transactionId") });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      await screenshot(page, "checkout-hosted-store");
    } finally {
      await page.close();
    }
  });

  it("3-D Secure at the intent gateway: the bank's page, Approve, back to the checkout, completed", async () => {
    const page = await stack.browser.newPage();
    try {
      const orderId = `e2e-3ds-ok-${Date.now()}`;
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider: "intent_gateway" })}`);
      await fillCard(page, "4000 0000 0000 3220");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByRole("heading", { name: "Confirm your payment" }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/demo\/intent-gateway\/3ds\/pi_demo_/);
      expect(await page.getByTestId("challenge-amount").textContent()).toBe("€49.99");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "checkout-3ds-challenge");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      const query = new URL(page.url()).searchParams;
      expect(Object.fromEntries(query)).toMatchObject({ orderId, provider: "intent_gateway" });
      expect(query.get("transactionId")).toMatch(/^pi_demo_/);
      const token = await api(stack.base, "/api/checkout/get-payment-token", { provider: "intent_gateway", transactionId: query.get("transactionId") });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
    } finally {
      await page.close();
    }
  });

  it("3-D Secure failed at the bank: back on the checkout with a sentence and the details kept; another card pays", async () => {
    const page = await stack.browser.newPage();
    try {
      const orderId = `e2e-3ds-fail-${Date.now()}`;
      const { successUrl: _none, ...rest } = claims(orderId);
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ ...rest, provider: "intent_gateway" })}`);
      await page.getByLabel("Phone (optional)").fill("+44 20 7946 0000");
      await fillCard(page, "4000000000003220");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByRole("button", { name: "Fail" }).click();
      const alert = page.getByTestId("checkout-error");
      await alert.filter({ hasText: "could not confirm" }).waitFor();
      expect(await alert.textContent()).toBe("Your bank could not confirm the payment, so nothing was charged. Try again or use another card.");
      expect(new URL(page.url()).pathname).toMatch(/^\/checkout\//);
      expect(new URL(page.url()).search).toBe("");
      expect(await page.getByLabel("Phone (optional)").inputValue()).toBe("+44 20 7946 0000");
      await fillCard(page, "4242 4242 4242 4242");
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(new URL(page.url()).searchParams.get("orderId")).toBe(orderId);
    } finally {
      await page.close();
    }
  });

  it("a declined card shows the API's message and keeps what was typed; another card then pays, each attempt with its own Idempotency-Key", async () => {
    const page = await stack.browser.newPage();
    const attemptKeys: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/providers/") || request.url().includes("/api/checkout/pay")) attemptKeys.push(request.headers()["idempotency-key"] ?? "");
    });
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-decline-${Date.now()}`))}`);
      await page.getByLabel("Phone (optional)").fill("+44 20 7946 0000");
      await fillCard(page, "4000 0000 0000 0002");
      await page.getByRole("button", { name: /^Pay / }).click();
      const alert = page.getByTestId("checkout-error");
      await alert.filter({ hasText: "declined" }).waitFor();
      expect(await alert.textContent()).toBe("Your card was declined. Try another card.");
      // Focus moved to the message, and nothing typed was lost.
      expect(await focusedAttribute(page, "data-testid")).toBe("checkout-error");
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

  it("field errors as the buyer types: required, Luhn, expiry; marked and described next to the field; nothing sent until fixed", async () => {
    const page = await stack.browser.newPage();
    const paymentCalls: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/providers/") || request.url().includes("/api/checkout/pay")) paymentCalls.push(request.url());
    });
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-fields-${Date.now()}`))}`);
      await page.getByRole("button", { name: "Pay €49.99" }).waitFor();
      const firstName = page.getByLabel("First name");
      await firstName.fill("");
      await firstName.blur();
      expect(await firstName.getAttribute("aria-invalid")).toBe("true");
      const describedBy = await firstName.getAttribute("aria-describedby");
      expect(await page.locator(`#${describedBy}`).textContent()).toBe("Enter your first name.");
      await firstName.fill("Ada");
      expect(await firstName.getAttribute("aria-invalid")).toBeNull();
      expect(await firstName.getAttribute("aria-describedby")).toBeNull();

      const number = page.getByLabel("Card number");
      await number.pressSequentially("4242424242424241");
      // Grouped in fours as typed, the brand named.
      expect(await number.inputValue()).toBe("4242 4242 4242 4241");
      expect(await page.getByTestId("card-brand").textContent()).toBe("Visa");
      await number.blur();
      expect(await number.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator(`#${await number.getAttribute("aria-describedby")}`).textContent()).toBe("This card number is not valid. Check it and try again.");
      expect(await number.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopColor: string } }).getComputedStyle(el).borderTopColor)).toBe("rgb(185, 28, 28)");

      const expiry = page.getByLabel("Expiry date (MM / YY)");
      await expiry.pressSequentially("0120");
      expect(await expiry.inputValue()).toBe("01 / 20");
      await expiry.blur();
      expect(await expiry.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#cardExp-error").textContent()).toBe("This card has expired. Use another card.");

      // Pay with problems left: nothing is sent, every problem shows, the first gets the focus.
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      expect(await focusedAttribute(page, "id")).toBe("cardNumber");
      expect(await page.getByLabel("Security code").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#cardCvv-error").textContent()).toBe("Enter the security code.");
      expect(paymentCalls).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "checkout-field-errors");

      await number.fill("4242 4242 4242 4242");
      await expiry.fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      expect(await number.getAttribute("aria-invalid")).toBeNull();
      await page.getByRole("button", { name: "Pay €49.99" }).click();
      await page.waitForURL(/\/upsell\//);
      expect(paymentCalls).toHaveLength(1);
    } finally {
      await page.close();
    }
  });

  it("card form basics: Amex grouped 4-6-5, a country list storing ISO codes, autocomplete attributes", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-basics-${Date.now()}`))}`);
      const number = page.getByLabel("Card number");
      await number.pressSequentially("378282246310005");
      expect(await number.inputValue()).toBe("3782 822463 10005");
      expect(await page.getByTestId("card-brand").textContent()).toBe("American Express");
      const country = page.getByLabel("Country");
      // The token's "GB" is chosen; every option's value is an ISO 3166-1 alpha-2 code.
      expect(await country.inputValue()).toBe("GB");
      const values = await country.locator("option").evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
      expect(values.length).toBe(250);
      expect(values.slice(1).every((v) => /^[A-Z]{2}$/.test(v))).toBe(true);
      await country.selectOption({ label: "Germany" });
      expect(await country.inputValue()).toBe("DE");
      const autocomplete = Object.fromEntries(
        await page.locator("input, select").evaluateAll((els) => els.map((e) => [(e as unknown as { id: string }).id, (e as unknown as { getAttribute(n: string): string }).getAttribute("autocomplete")])),
      );
      expect(autocomplete).toMatchObject({
        email: "email",
        firstName: "given-name",
        lastName: "family-name",
        phone: "tel",
        line1: "address-line1",
        city: "address-level2",
        postalCode: "postal-code",
        country: "country",
        cardName: "cc-name",
        cardNumber: "cc-number",
        cardExp: "cc-exp",
        cardCvv: "cc-csc",
      });
      // The name on the card follows the buyer's name.
      expect(await page.getByLabel("Name on card").inputValue()).toBe("Ada Lovelace");
    } finally {
      await page.close();
    }
  });

  it("order summary: two items with quantity and unit price, subtotal and total; a broken image leaves nothing; Back to the shop", async () => {
    const page = await stack.browser.newPage({ locale: "en-GB" });
    try {
      const orderId = `e2e-summary-${Date.now()}`;
      const token = await checkoutToken({
        ...claims(orderId),
        amount: 5500,
        productImage: `${merchant.url}/missing.png`,
        lineItems: [
          { id: "grinder", name: "Hand grinder", quantity: 1, unitPrice: 3500 },
          { id: "beans", name: "Beans, 250 g", quantity: 2, unitPrice: 1000 },
        ],
        cancelUrl: `${merchant.url}/cart`,
      });
      await page.goto(`${stack.base}/checkout/${token}`);
      await page.getByRole("button", { name: "Pay €55.00" }).waitFor();
      const rows = page.getByTestId("line-item");
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).innerText()).toMatch(/Hand grinder\s+1 × €35.00\s+€35.00/);
      expect(await rows.nth(1).innerText()).toMatch(/Beans, 250 g\s+2 × €10.00\s+€20.00/);
      expect(await page.getByTestId("subtotal").textContent()).toBe("€55.00");
      expect(await page.getByTestId("price").textContent()).toBe("€55.00");
      // The image failed to load: no broken-image icon, no grey box.
      await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector("[data-testid=product-image]"));
      expect(await page.locator(".product-image").count()).toBe(0);
      const back = page.getByRole("link", { name: "← Back to 127.0.0.1" });
      expect(await back.getAttribute("href")).toBe(`${merchant.url}/cart`);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "checkout-summary");

      // Without an image or a cancelUrl: neither is shown.
      const { productImage: _i, ...plain } = claims(`${orderId}-plain`);
      await page.goto(`${stack.base}/checkout/${await checkoutToken(plain)}`);
      await page.getByRole("button", { name: "Pay €49.99" }).waitFor();
      expect(await page.locator(".product-image").count()).toBe(0);
      expect(await page.getByTestId("cancel-link").count()).toBe(0);
      expect(await page.getByTestId("line-item").count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("a failed initialize says so with a Try again button, which prepares the checkout", async () => {
    const page = await stack.browser.newPage();
    try {
      // The connection drops on the first initialize (as on a flaky mobile network).
      let dropped = false;
      await page.route("**/api/checkout/initialize", (route) => {
        if (dropped) return route.continue();
        dropped = true;
        return route.abort("connectionreset");
      });
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`e2e-retry-${Date.now()}`))}`);
      await page.getByTestId("retry").waitFor();
      expect(await page.getByTestId("checkout-error").textContent()).toBe("The service could not be reached. Check your connection and try again.");
      expect(await page.getByRole("button", { name: "Preparing checkout…" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Pay €49.99" }).isDisabled()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Try again" }).click();
      await page.getByRole("button", { name: "Pay €49.99" }).and(page.locator(":enabled")).waitFor();
      expect(await page.getByTestId("retry").count()).toBe(0);
      expect(await page.getByTestId("checkout-error").textContent()).toBe("");
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
