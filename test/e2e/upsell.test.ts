// Browser: the upsell page's other outcomes: a one-click charge the card refuses (the API's message,
// the offer stays, declining still moves on), an unknown session, and an expired session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, NO_CHROMIUM, paidUpsellSession, screenshot, startStack, type Stack } from "./support.js";

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
  it("a refused one-click charge shows the API's message and keeps the offer; decline then ends the flow", async () => {
    const page = await stack.browser.newPage();
    try {
      // 4000000000000341 pays the checkout; every later charge of its saved method is declined.
      const id = await session(stack, "4000000000000341");
      await page.goto(`${stack.base}/upsell/${id}`);
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("alert").filter({ hasText: "Payment failed: card_declined" }).waitFor();
      expect(await page.getByTestId("offer-name").textContent()).toBe("Coffee scale");
      await screenshot(page, "upsell-declined");
      await page.getByRole("button", { name: "No, thanks" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect((await api(stack.base, `/api/upsell/session/${id}`)).body.session).toMatchObject({ status: "completed", acceptedOffers: [], declinedOffers: ["scale"], totalUpsellAmount: 0 });
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
      expect(await page.getByRole("link", { name: "Continue" }).getAttribute("href")).toBe("/success");
      await screenshot(page, "upsell-expired");
    } finally {
      await page.close();
      await short.close();
    }
  });
});
