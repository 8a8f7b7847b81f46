// Browser: the upsell page's other outcomes: a one-click charge the card refuses (a card form for that
// offer: another card pays it, or the buyer declines), the success page with what was charged, an
// unknown session, and an expired session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, paidUpsellSession, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** A checkout paid with `cardNumber` through the API, and an upsell session on it. */
const session = (stack: Stack, cardNumber: string, successUrl?: string) =>
  paidUpsellSession(stack.base, {
    claims: { orderId: `up-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount: 3000, currency: "USD", productName: "Kettle", ...(successUrl ? { successUrl } : {}) },
    cardNumber,
    offers: [{ id: "scale", name: "Coffee scale", price: 2500 }],
  });

describe.skipIf(NO_CHROMIUM)("upsell page outcomes in Chromium", () => {
  it("a refused one-click charge offers a card form for that offer; another card pays it; the success page shows both charges", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      // 4000000000000341 pays the checkout; every later charge of its saved method is declined.
      const id = await session(stack, "4000000000000341");
      await page.goto(`${stack.base}/upsell/${id}`);
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("heading", { name: "Pay for this offer with another card" }).waitFor();
      expect(await page.getByTestId("offer-name").textContent()).toBe("Coffee scale");
      expect(await seriousViolations(page)).toEqual([]);
      // A card the gateway declines: said in plain words, the form stays.
      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: "Pay $25.00" }).click();
      await page.getByRole("alert").filter({ hasText: "This card was declined too. Try another card." }).waitFor();
      await screenshot(page, "upsell-pay-with-card");
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByRole("button", { name: "Pay $25.00" }).click();

      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      const url = new URL(page.url());
      expect(url.pathname).toBe("/success");
      expect(url.searchParams.get("sessionId")).toBe(id);
      await page.getByTestId("charges").waitFor();
      expect(await page.getByTestId("order-id").textContent()).toBe(url.searchParams.get("orderId"));
      expect(await page.getByTestId("charge-order").textContent()).toBe("Kettle$30.00");
      expect(await page.getByTestId("charge-upsell").textContent()).toBe("Added: Coffee scale$25.00");
      expect(await page.getByTestId("total-USD").textContent()).toBe("$55.00");
      // Receipts are on for the default brand: the page promises one.
      expect(await page.getByTestId("receipt-note").count()).toBe(1);
      expect(await page.title()).toBe("Order confirmed");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "upsell-success-charges");
      expect((await api(stack.base, `/api/upsell/session/${id}`)).body.session).toMatchObject({ status: "completed", acceptedOffers: ["scale"], totalUpsellAmount: 2500 });
    } finally {
      await page.close();
    }
  });

  it("a refused one-click charge can still be declined from the card form; the flow ends", async () => {
    const page = await stack.browser.newPage();
    try {
      const id = await session(stack, "4000000000000341");
      await page.goto(`${stack.base}/upsell/${id}`);
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("heading", { name: "Pay for this offer with another card" }).waitFor();
      await page.getByRole("button", { name: "No, thanks" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      await page.getByTestId("charges").waitFor();
      expect(await page.getByTestId("charge-upsell").count()).toBe(0);
      expect((await api(stack.base, `/api/upsell/session/${id}`)).body.session).toMatchObject({ status: "completed", acceptedOffers: [], declinedOffers: ["scale"], totalUpsellAmount: 0 });
    } finally {
      await page.close();
    }
  });

  it("a refused one-click charge at a provider that takes no other card (order_crm_b) says so, shows no card form, and No, thanks ends the flow", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      const id = await paidUpsellSession(stack.base, {
        claims: { orderId: `up-crmb-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount: 3000, currency: "USD", productName: "Kettle" },
        cardNumber: "4000000000000341",
        provider: "order_crm_b",
        offers: [{ id: "scale", name: "Coffee scale", price: 2500 }],
      });
      await page.goto(`${stack.base}/upsell/${id}`);
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("alert").filter({ hasText: "Payment failed: card_declined" }).waitFor();
      expect(await page.getByRole("heading", { name: "Pay for this offer with another card" }).count()).toBe(0);
      expect(await page.getByLabel("Card number").count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "No, thanks" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect((await api(stack.base, `/api/upsell/session/${id}`)).body.session).toMatchObject({ status: "completed", acceptedOffers: [], declinedOffers: ["scale"] });
    } finally {
      await page.close();
    }
  });

  it("the checkout page's title names the product and the shop; no page load asks for anything that is missing (favicon included)", async () => {
    const page = await stack.browser.newPage();
    const missing: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    try {
      const token = await checkoutToken({ orderId: `title-${Date.now()}`, amount: 3000, currency: "USD", productName: "Kettle" });
      await page.goto(`${stack.base}/checkout/${token}`);
      await expect.poll(() => page.title(), { timeout: 10_000 }).toBe("Kettle – Default brand");
      await page.goto(`${stack.base}/success`);
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(await page.title()).toBe("Order confirmed");
      // The favicon is fetched by Chromium itself; wait for it before checking for 404s.
      expect((await page.request.get(`${stack.base}/favicon.ico`)).status()).toBe(200);
      expect(missing).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("an unknown session says the offer is not available", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/upsell/ups_does_not_exist`);
      await page.getByRole("heading", { name: "This offer is not available" }).waitFor();
    } finally {
      await page.close();
    }
  });

  it("an expired session shows the expired page, and nothing can be charged from it", async () => {
    // Its own server whose sessions live 1 s, so the expired page is reached by waiting for the API
    // to say so (however long the set-up takes), not by racing a timer.
    const short = await startStack({ UPSELL_SESSION_TTL_SECONDS: "1" });
    const page = await short.browser.newPage();
    const stack = short;
    try {
      const id = await session(stack, "4242424242424242");
      // Wait for the server to call it expired (however long the set-up took), then open the page.
      await expect.poll(async () => (await api(stack.base, `/api/upsell/session/${id}`)).body.session.status, { timeout: 20_000, interval: 250 }).toBe("expired");
      await page.goto(`${stack.base}/upsell/${id}`);
      await page.getByRole("heading", { name: "This offer has expired" }).waitFor();
      expect(await page.getByRole("button").count()).toBe(0);
      // The end of the flow carries the order and the session (the success page's proof).
      expect(await page.getByRole("link", { name: "Continue" }).getAttribute("href")).toMatch(new RegExp(`^/success\\?orderId=[^&]+&sessionId=${id}$`));
      await screenshot(page, "upsell-expired");
    } finally {
      await page.close();
      await short.close();
    }
  });
});
