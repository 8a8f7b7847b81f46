// Browser: axe-core finds no serious or critical violation (WCAG 2.1 A/AA and best practices) on the
// checkout, upsell, success and login pages, including the checkout's declined-card state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutToken, NO_CHROMIUM, paidUpsellSession, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const claims = (orderId: string) => ({
  orderId,
  amount: 2599,
  currency: "USD",
  productName: "Pour-over set",
  productDescription: "Dripper, carafe and filters.",
  customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
  shippingAddress: { address1: "1 Main St", city: "Springfield", state: "IL", postalCode: "62701", country: "US" },
});

/** A completed checkout and an upsell session on it, through the API as a merchant does it. */
const upsellSession = () =>
  paidUpsellSession(stack.base, {
    claims: claims(`a11y-${Date.now()}`),
    offers: [{ id: "filters", name: "A year of filters", description: "Twelve packs, delivered monthly.", price: 1800, originalPrice: 2400 }],
  });

describe.skipIf(NO_CHROMIUM)("accessibility (axe-core) in Chromium", () => {
  it("checkout page, before and after a declined card", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`a11y-checkout-${Date.now()}`))}`);
      await page.getByRole("button", { name: "Pay US$25.99" }).or(page.getByRole("button", { name: "Pay $25.99" })).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Card number").fill("4000000000000002");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: /^Pay / }).click();
      await page.getByTestId("checkout-error").filter({ hasText: "declined" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "a11y-checkout");
    } finally {
      await page.close();
    }
  });

  it("upsell and success pages", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/upsell/${await upsellSession()}`);
      await page.getByTestId("offer-name").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "a11y-upsell");
      await page.goto(`${stack.base}/success?error=session_expired`);
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("login page: password, register and 2FA steps", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/login?error=expired_token`);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Register" }).click();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`${stack.base}/login?step=2fa&userId=usr_x`);
      await page.getByLabel("Authentication code").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "a11y-login");
    } finally {
      await page.close();
    }
  });

  it("the check itself fails on a page with an unlabeled field and an image without text", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.setContent(`<!doctype html><html lang="en"><head><title>x</title></head><body><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><input type="text"></main></body></html>`);
      expect((await seriousViolations(page)).map((v) => v.id).sort()).toEqual(["image-alt", "label"]);
    } finally {
      await page.close();
    }
  });
});
