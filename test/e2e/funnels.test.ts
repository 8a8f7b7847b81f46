// Browser (issue 19): a merchant with only payment links builds a two-step funnel (a split test on
// the first step) on the Upsell funnels page, a buyer pays through a generated link on the hosted
// page and lands on the funnel's first offer instead of the success page; the stats table shows it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_CHROMIUM, registerInBrowser, screenshot, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("upsell funnels in Chromium", () => {
  it("builds a two-step funnel, a buyer pays through a payment link and lands on its first offer", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    const customer = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Fern Funnel");
      await page.getByRole("link", { name: "Upsell funnels" }).click();
      await page.getByText("No funnels yet.").waitFor();
      await page.getByRole("button", { name: "New funnel" }).click();
      await page.getByLabel("Name", { exact: true }).fill("Roaster buyers");
      await page.getByLabel("Status").selectOption("live");
      await page.getByLabel("Products bought (ids or names, comma-separated)").fill("Roaster deluxe");
      await page.getByLabel("Step 1 variant 1 offer name").fill("Bean subscription");
      await page.getByLabel("Step 1 variant 1 offer price").fill("19.00");
      // The rarely used fields sit under "More options" (issue 36 item 14).
      await page.locator("summary", { hasText: "More options for step 1 variant 1" }).click();
      await page.getByLabel("Step 1 variant 1 offer original price (optional)").fill("29.00");
      await page.getByRole("button", { name: "Add a variant to step 1" }).click();
      await page.getByLabel("Step 1 variant 2 offer name").fill("Bean subscription");
      await page.getByLabel("Step 1 variant 2 offer price").fill("19.00");
      await page.getByRole("button", { name: "Add a step" }).click();
      await page.getByLabel("Step 2 variant 1 offer name").fill("Grinder");
      await page.getByLabel("Step 2 variant 1 offer price").fill("49.00");
      await page.getByRole("button", { name: "Save funnel" }).click();
      await page.getByText("Saved funnel Roaster buyers (version 1).").waitFor();
      await page.getByRole("cell", { name: "Roaster buyers", exact: true }).waitFor();

      // A lasting payment link, the way a merchant without a server sells (no salesperson needed).
      await page.getByRole("link", { name: "Payment links" }).click();
      const form = page.getByRole("form", { name: "New payment link" });
      await form.getByLabel("Product name").fill("Roaster deluxe");
      await form.getByLabel("Price per unit").fill("120.00");
      await form.getByRole("button", { name: "Create payment link" }).click();
      const link = (await page.getByTestId("payment-link").textContent())!;

      await customer.goto(`${stack.base}${new URL(link).pathname}`);
      for (const [label, value] of [["Email", "ada@example.com"], ["First name", "Ada"], ["Last name", "Lovelace"], ["Address", "1 Main St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"], ["Card number", "4242424242424242"], ["Expiry date (MM / YY)", "12 / 31"], ["Security code", "123"]])
        await customer.getByLabel(label, { exact: true }).fill(value);
      await customer.getByLabel("Country", { exact: true }).selectOption("US");
      await customer.getByRole("button", { name: "Pay $120.00" }).click();
      await customer.getByTestId("offer-name").filter({ hasText: "Bean subscription" }).waitFor();
      expect(customer.url()).toMatch(new RegExp(`^${stack.base}/upsell/ups_`));
      expect(await customer.getByTestId("offer-price").textContent()).toBe("$19.00");
      await customer.getByRole("button", { name: "No, thanks" }).click();
      await customer.getByTestId("offer-name").filter({ hasText: "Grinder" }).waitFor();
      await screenshot(customer, "funnel-second-offer");

      await page.getByRole("link", { name: "Upsell funnels" }).click();
      await page.getByRole("button", { name: "Stats" }).click();
      await page.getByText(/Sessions 1, with an accept 0/).waitFor();
      expect(await page.getByRole("button", { name: /^Promote / }).count()).toBe(2);
      // Issue 36: variants are named by their offers, not their var_… ids, and the table fits 1 280 px.
      expect(await page.getByTestId("variant-name").allTextContents()).toEqual(["Bean subscription (variant 1)", "Bean subscription (variant 2)", "Grinder"]);
      await page.getByRole("button", { name: "Promote Bean subscription (variant 2)" }).waitFor();
      await page.setViewportSize({ width: 1280, height: 800 });
      for (const promote of await page.getByRole("button", { name: /^Promote / }).all()) expect((await promote.boundingBox())!.x + (await promote.boundingBox())!.width).toBeLessThanOrEqual(1280);
      expect(await page.evaluate(`(() => { const t = document.querySelector(".funnel-stats table"); return t.scrollWidth <= t.parentElement.clientWidth; })()`)).toBe(true);
      expect(await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")).toBe(true);
      await screenshot(page, "funnel-stats");
      // The dashboard's take rate per offer names the offers too.
      await page.getByRole("link", { name: "Dashboard" }).click();
      await page.getByRole("radio", { name: "Test" }).check();
      const takeRates = page.getByRole("table").filter({ hasText: "Take rate" });
      await takeRates.getByRole("cell", { name: "Bean subscription" }).first().waitFor();
      expect(await takeRates.textContent()).not.toContain("var_");
    } finally {
      await customer.close();
      await page.close();
    }
  });
});
