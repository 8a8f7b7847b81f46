// Browser: issue 16 hole 2 (CONTRACT §36): a checkout token whose successUrl is javascript: never
// gets its script run on our origin: the checkout page says the link is not valid, and no dialog
// opens and no script of the URL runs, whatever the customer does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutToken, NO_CHROMIUM, screenshot, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("a javascript: successUrl in Chromium", () => {
  it("is refused: the checkout page shows the invalid-link message and the script never runs", async () => {
    const page = await stack.browser.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      const token = await checkoutToken({
        orderId: `xss-${Date.now()}`,
        amount: 2500,
        currency: "USD",
        productName: "Kettle",
        successUrl: "javascript:window.__pwned=document.domain;alert(document.domain)//",
        cancelUrl: "javascript:window.__pwned=document.domain//",
      });
      await page.goto(`${stack.base}/checkout/${token}`);
      await page.getByRole("heading", { name: "This checkout link is not valid or has expired" }).waitFor();
      await screenshot(page, "redirect-targets-javascript-refused");
      // Give a navigation that should not happen the time to happen.
      await page.waitForTimeout(500);
      expect(await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(new URL(page.url()).protocol).toBe("http:");
    } finally {
      await page.close();
    }
  });
});
