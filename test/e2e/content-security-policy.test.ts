// Browser (issue 21 item 6): the pages work under their Content-Security-Policy. Every page a
// customer, a merchant or an operator opens is loaded and used in Chromium, and the test fails on
// any `securitypolicyviolation` (or a CSP message in the console).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, paidUpsellSession, PRODUCT_SVG, registerInBrowser, startMerchant, startStack, type Stack } from "./support.js";

let stack: Stack;
let merchant: Awaited<ReturnType<typeof startMerchant>>;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  merchant = await startMerchant((_req, res, url) => {
    if (url.pathname === "/kit.svg") {
      res.writeHead(200, { "content-type": "image/svg+xml" }).end(PRODUCT_SVG);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end("<h1>Thanks from the merchant</h1>");
  });
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
  await merchant?.close();
});

/** A page that records every CSP violation (the DOM event, and Chromium's console report). */
async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
  const page = await stack.browser.newPage();
  const violations: string[] = [];
  await page.exposeFunction("__cspViolation", (text: string) => violations.push(text));
  // Runs in the page before its own scripts (a string: the test's TypeScript has no DOM types).
  await page.addInitScript(`document.addEventListener("securitypolicyviolation", (e) => {
    window.__cspViolation(e.violatedDirective + " blocked " + (e.blockedURI || "(inline)") + " on " + location.pathname);
  });`);
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return { page, violations };
}

describe.skipIf(NO_CHROMIUM)("pages under their Content-Security-Policy in Chromium", () => {
  it("checkout (with the merchant's product image) and the upsell page run without a violation", async () => {
    const { page, violations } = await watchedPage();
    try {
      const orderId = `csp-${Date.now()}`;
      const token = await checkoutToken({ orderId, amount: 1999, currency: "USD", productName: "Grinder", productImage: `${merchant.url}/kit.svg` });
      const response = await page.goto(`${stack.base}/checkout/${token}`);
      expect(response!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      await page.getByRole("heading", { name: "Grinder" }).waitFor();
      await page.waitForFunction(`document.querySelector("img.product-image")?.naturalWidth > 0`);
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");

      const sessionId = await paidUpsellSession(stack.base, {
        claims: { orderId: `${orderId}-b`, amount: 3000, currency: "USD", productName: "Kettle" },
        offers: [{ id: "scale", name: "Coffee scale", price: 2500 }],
      });
      await page.goto(`${stack.base}/upsell/${sessionId}`);
      await page.getByTestId("offer-name").filter({ hasText: "Coffee scale" }).waitFor();
      await page.getByRole("button", { name: /Yes, add it/ }).click();
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("an upsell action link's confirmation form may redirect to the merchant's success URL", async () => {
    const { page, violations } = await watchedPage();
    try {
      const sessionId = await paidUpsellSession(stack.base, {
        claims: { orderId: `csp-link-${Date.now()}`, amount: 3000, currency: "USD", productName: "Kettle", successUrl: `${merchant.url}/thanks` },
        offers: [{ id: "scale", name: "Coffee scale", price: 2500 }],
      });
      // As a mail client's link preview opens it (no Sec-Fetch-User: ?1, which Chromium sends on any
      // navigation Playwright makes): the page asks first, and its form posts.
      await page.route("**/upsell/action/**", async (route) => {
        if (route.request().method() !== "GET") return route.continue();
        const headers = { ...(await route.request().allHeaders()) };
        delete headers["sec-fetch-user"];
        return route.fulfill({ response: await route.fetch({ headers, maxRedirects: 0 }) });
      });
      await page.goto(`${stack.base}/upsell/action/decline/${sessionId}`);
      await page.getByRole("button", { name: "No, thanks" }).click();
      await page.getByRole("heading", { name: "Thanks from the merchant" }).waitFor();
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("the demo store's page, the demo bank's 3-D Secure page and the link pages load their styles from /pages.css, without a violation (issue 36 item 6)", async () => {
    const { page, violations } = await watchedPage();
    /** The page's main box is styled (white card) only when the stylesheet loaded. */
    const styled = () => page.evaluate(`getComputedStyle(document.querySelector("main")).backgroundColor`);
    try {
      const token = (orderId: string, provider: string) => checkoutToken({ orderId, amount: 1999, currency: "USD", productName: "Grinder", provider });
      // The demo pages' URLs are absolute under PUBLIC_BASE_URL: their paths are opened on this server.
      const store = await api(stack.base, "/api/checkout/initialize", { token: await token(`csp-store-${Date.now()}`, "hosted_store"), provider: "hosted_store" });
      expect(store.status, JSON.stringify(store.body)).toBe(200);
      await page.goto(`${stack.base}${new URL(store.body.checkoutUrl).pathname}`);
      await page.getByRole("heading", { name: "Pay your order" }).waitFor();
      expect(await styled()).toBe("rgb(255, 255, 255)");

      const orderId = `csp-3ds-${Date.now()}`;
      const intent = await api(stack.base, "/api/checkout/initialize", { token: await token(orderId, "intent_gateway"), provider: "intent_gateway" });
      const confirmed = await api(stack.base, "/api/providers/intent_gateway/confirm", {
        paymentIntentId: intent.body.providerOrderId,
        cardNumber: "4000000000003220",
        cardExpMonth: "12",
        cardExpYear: "2031",
        cardCvv: "123",
        returnUrl: "/checkout/x",
      });
      expect(confirmed.body.status, JSON.stringify(confirmed.body)).toBe("requires_action");
      await page.goto(`${stack.base}${new URL(confirmed.body.nextAction.url, stack.base).pathname}`);
      await page.getByRole("heading", { name: "Confirm your payment" }).waitFor();
      expect(await styled()).toBe("rgb(255, 255, 255)");

      for (const path of ["/c/no-such-code", "/l/no-such-link"]) {
        const response = await page.goto(`${stack.base}${path}`);
        expect(response!.status()).toBe(404);
        await page.getByRole("heading", { name: "Link not found" }).waitFor();
        expect(await styled()).toBe("rgb(255, 255, 255)");
      }
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("login, registration, the administration pages (2FA QR code included) and Swagger UI run without a violation", async () => {
    const { page, violations } = await watchedPage();
    try {
      await registerInBrowser(page, stack.base, "Grace Hopper");
      for (const [link, heading] of [["Orders", "Orders"], ["Webhooks", "Webhook endpoints"], ["Two-factor authentication", "Two-factor authentication"]]) {
        await page.getByRole("link", { name: link }).first().click();
        await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      }
      await page.getByAltText("QR code for your authenticator app").waitFor();
      await page.goto(`${stack.base}/docs`);
      await page.locator(".swagger-ui .info .title").waitFor();
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
