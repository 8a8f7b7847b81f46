// Browser (issue 36, buyers): what a buyer walking the checkout, the upsell and the success pages in
// Chromium tripped over — address rules by country, coming back after paying, the upsell's word on the
// first order and its card form, the receipt's address, and the phone layout.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutToken, NO_CHROMIUM, paidUpsellSession, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const claims = (orderId: string, extra: Record<string, unknown> = {}) => ({
  orderId,
  amount: 2500,
  currency: "USD",
  productName: "Pour-over kettle",
  customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
  ...extra,
});

/** An element's box in the page (the test's TypeScript has no DOM types: a string runs in the page). */
const box = (page: Page, selector: string) =>
  page.evaluate(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height }; })()`) as Promise<{ top: number; bottom: number; height: number }>;

describe.skipIf(NO_CHROMIUM)("buyer pages (issue 36)", () => {
  it("on a 390 px phone: expiry and security code stay on one line (also with a problem under one); an empty alert leaves no gap", async () => {
    const page = await stack.browser.newPage({ viewport: { width: 390, height: 844 }, locale: "en-US" });
    try {
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`phone-${Date.now()}`))}`);
      await page.getByRole("button", { name: "Pay $25.00" }).waitFor();
      // The expiry's label takes two lines here, the security code's one.
      expect((await box(page, 'label[for="cardExp"]')).height).toBeGreaterThan((await box(page, 'label[for="cardCvv"]')).height + 5);
      const [expiry, cvc] = [await box(page, "#cardExp"), await box(page, "#cardCvv")];
      expect(Math.abs(expiry.top - cvc.top)).toBeLessThan(1);
      expect(Math.abs(expiry.height - cvc.height)).toBeLessThan(1);
      // A problem under the expiry only: the security code's input stays beside it.
      await page.getByLabel("Expiry date (MM / YY)").fill("13 / 20");
      await page.getByLabel("Security code").focus();
      await page.locator("#cardExp-error").waitFor();
      expect(Math.abs((await box(page, "#cardExp")).top - (await box(page, "#cardCvv")).top)).toBeLessThan(1);

      // The empty alert takes no room: the heading is followed by the Email field as by any other.
      const alert = await box(page, '[data-testid="checkout-error"]');
      expect(alert.height).toBe(0);
      const gap = (await box(page, 'label[for="email"]')).top - (await box(page, "#pay-heading")).bottom;
      expect(gap).toBeLessThan(20);
      // Where there is something to say, it shows.
      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      for (const [label, value] of [["Address", "1 Main St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"]]) await page.getByLabel(label, { exact: true }).fill(value);
      await page.getByLabel("Country", { exact: true }).selectOption("US");
      await page.getByRole("button", { name: "Pay $25.00" }).click();
      await page.getByTestId("checkout-error").filter({ hasText: /declined/ }).waitFor();
      expect((await box(page, '[data-testid="checkout-error"]')).height).toBeGreaterThan(20);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("the success page says which address the receipt went to, masked (item 4)", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      const orderId = `receipt-${Date.now()}`;
      const sessionId = await paidUpsellSession(stack.base, { claims: { orderId, amount: 3000, currency: "USD", productName: "Kettle" }, offers: [{ id: "scale", name: "Coffee scale", price: 2500 }] });
      await page.goto(`${stack.base}/success?orderId=${orderId}&sessionId=${sessionId}`);
      await page.getByTestId("charges").waitFor();
      expect(await page.getByTestId("receipt-note").textContent()).toBe("A receipt for each charge is on its way to a•••@example.com.");
      expect(await page.content()).not.toContain("ada@example.com");
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("back after paying: the branded confirmation of that order with its charges, no way to pay again (item 2)", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      const orderId = `back-${Date.now()}`;
      const path = `/checkout/${await checkoutToken(claims(orderId, { lineItems: [{ id: "kettle", name: "Pour-over kettle", quantity: 1, unitPrice: 2500 }] }))}`;
      await page.goto(`${stack.base}${path}`);
      await fillAddress(page);
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: "Pay $25.00" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();

      await page.goBack();
      await page.getByRole("heading", { name: "This order is paid" }).waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
      await page.getByTestId("charges").waitFor();
      expect(await page.getByTestId("charge-order").textContent()).toBe("Pour-over kettle$25.00");
      expect(await page.getByTestId("order-id").textContent()).toBe(orderId);
      expect(await page.getByRole("button").count()).toBe(0);
      expect(await page.getByText(/start the checkout again/).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      // The proof is the token: a forged one reads nothing.
      const forged = await fetch(`${stack.base}/api/checkout/confirmation`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: `${path.slice(10)}x` }) });
      expect(forged.status).toBe(401);
    } finally {
      await page.close();
    }
  });

  it("the upsell page says the first order went through, with its amount; after a refused one-click charge its card form is the checkout's (item 3)", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      const orderId = `upsell-card-${Date.now()}`;
      // 4000000000000341 pays the checkout; every later charge of its saved method is declined.
      const sessionId = await paidUpsellSession(stack.base, { claims: { orderId, amount: 3000, currency: "USD", productName: "Kettle" }, cardNumber: "4000000000000341", offers: [{ id: "scale", name: "Coffee scale", price: 2500 }] });
      await page.goto(`${stack.base}/upsell/${sessionId}`);
      expect(await page.getByTestId("order-confirmed").textContent()).toBe(`Your order ${orderId} of $30.00 went through: it is paid and confirmed, whatever you choose below.`);
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("heading", { name: "Pay for this offer with another card" }).waitFor();
      // Grouped as typed, the brand beside the label, problems under the field once it is left.
      const number = page.getByLabel("Card number");
      await number.pressSequentially("4242424242424241");
      expect(await number.inputValue()).toBe("4242 4242 4242 4241");
      expect(await page.getByTestId("card-brand").textContent()).toBe("Visa");
      await page.getByLabel("Expiry date (MM / YY)").pressSequentially("1231");
      expect(await page.getByLabel("Expiry date (MM / YY)").inputValue()).toBe("12 / 31");
      expect(await number.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#upsell-cardNumber-error").textContent()).toMatch(/card number/i);
      // Nothing is sent while a field has a problem: the first one gets the focus.
      await page.getByRole("button", { name: "Pay $25.00" }).click();
      expect(await page.evaluate("document.activeElement.id")).toBe("upsell-cardNumber");
      expect(await page.locator("#upsell-cardCvv-error").count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await number.fill("4242 4242 4242 4242");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: "Pay $25.00" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      await page.getByTestId("charge-upsell").waitFor();
    } finally {
      await page.close();
    }
  });

  it("address rules by country: a UK buyer's county is optional and the postcode checked; ZIP code, no state in Germany; no address when the checkout ships nothing (item 1)", async () => {
    const page = await stack.browser.newPage({ locale: "en-GB" });
    try {
      const uk = claims(`uk-${Date.now()}`, { currency: "GBP", shippingAddress: { address1: "12 Analytical St", city: "London", state: "", postalCode: "N1 9GU", country: "GB" } });
      await page.goto(`${stack.base}/checkout/${await checkoutToken(uk)}`);
      const address = page.getByTestId("shipping-address");
      expect(await address.getByLabel("County (optional)").getAttribute("required")).toBeNull();
      const postcode = address.getByLabel("Postcode", { exact: true });
      await postcode.fill("12345");
      await address.getByLabel("City").focus();
      expect(await page.locator("#postalCode-error").textContent()).toBe("Enter a postcode like SW1A 1AA.");
      await postcode.fill("N1 9GU");
      expect(await page.locator("#postalCode-error").count()).toBe(0);
      // The United States: State and ZIP code, required and checked.
      await address.getByLabel("Country").selectOption("US");
      expect(await address.getByLabel("ZIP code").getAttribute("aria-invalid")).toBe("true");
      await address.getByLabel("State", { exact: true }).focus();
      await address.getByLabel("City").focus();
      expect(await page.locator("#state-error").textContent()).toBe("Enter your state.");
      // Germany: no state at all.
      await address.getByLabel("Country").selectOption("DE");
      expect(await address.locator("#state").count()).toBe(0);
      await postcode.fill("10115");
      await address.getByLabel("Country").selectOption("GB");
      await postcode.fill("N1 9GU");
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Pay £25.00" }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).or(page.getByTestId("checkout-error").filter({ hasText: /\w/ })).waitFor();
      expect(await page.getByTestId("checkout-error").count() ? await page.getByTestId("checkout-error").textContent() : "").toBe("");

      // A download: no shipping address asked, none needed to pay.
      await page.goto(`${stack.base}/checkout/${await checkoutToken(claims(`ebook-${Date.now()}`, { productName: "E-book", shippingAddressRequired: false }))}`);
      await page.getByRole("heading", { name: "E-book" }).waitFor();
      expect(await page.getByTestId("shipping-address").count()).toBe(0);
      expect(await page.getByLabel("Country").count()).toBe(0);
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByLabel("Expiry date (MM / YY)").fill("12 / 31");
      await page.getByLabel("Security code").fill("123");
      await page.getByRole("button", { name: /^Pay .*25\.00$/ }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).or(page.getByTestId("checkout-error").filter({ hasText: /\w/ })).waitFor();
      expect(await page.getByTestId("checkout-error").count() ? await page.getByTestId("checkout-error").textContent() : "").toBe("");
    } finally {
      await page.close();
    }
  });
});

/** The shipping address of a US buyer (the labels are the ones before a country is chosen). */
async function fillAddress(page: Page): Promise<void> {
  for (const [label, value] of [["Address", "1 Main St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"]]) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel("Country", { exact: true }).selectOption("US");
}
