// Browser (issue 34 item 2): a merchant adds a routing rule with a 70/30 split and a daily cap on the
// Payment routing page, saves it as version 1 and sees it saved (list, version history, the API), in
// the mode the Live/Test switch shows; reorders, saves version 2 and loads version 1 back. axe-core
// finds no serious violation on the page and its rule form.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("payment routing in Chromium", () => {
  it("creates a rule with a split, saves it as a version and sees it saved", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Rita Routing");
      await page.getByRole("link", { name: "Payment routing" }).click();
      await page.getByRole("heading", { name: "Payment routing" }).waitFor();
      // A new brand has no live credentials: its mode is test.
      await page.getByText("Showing the test rules, version none saved yet").waitFor();
      await page.getByText("No version saved yet for test orders.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("button", { name: "Add a rule" }).click();
      await page.getByLabel("Rule name").fill("EU split");
      await page.getByLabel("Currencies (codes, comma-separated)").fill("eur");
      await page.getByLabel("visa").check();
      await page.getByLabel("Send the order to").selectOption("split");
      await page.getByLabel("Provider 1", { exact: true }).selectOption("vault_gateway_a");
      await page.getByLabel("Weight of provider 1").fill("70");
      await page.getByLabel("Provider 2", { exact: true }).selectOption("vault_gateway_b");
      await page.getByLabel("Weight of provider 2").fill("30");
      await page.getByRole("button", { name: "Add a cap" }).click();
      await page.getByLabel("Cap 1 provider").selectOption("vault_gateway_a");
      await page.getByLabel("Cap 1 currency").fill("EUR");
      await page.getByLabel("Cap 1 daily amount (minor units)").fill("500000");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Add rule" }).click();
      await page.getByRole("cell", { name: "split vault_gateway_a 70%, vault_gateway_b 30%; caps: vault_gateway_a 500000 EUR/day" }).waitFor();
      await page.getByText("(unsaved changes)").waitFor();

      await page.getByRole("button", { name: "Add a rule" }).click();
      await page.getByLabel("Rule name").fill("Big orders");
      await page.getByLabel("Amount at least (minor units)").fill("100000");
      await page.getByLabel("Provider", { exact: true }).selectOption("intent_gateway");
      await page.getByRole("button", { name: "Add rule" }).click();
      await page.getByLabel("Providers one payment may try when a card is soft-declined (cascade)").selectOption("3");
      await page.getByRole("button", { name: "Save as a new version" }).click();
      await page.getByText("Saved version 1 of the test routing rules.").waitFor();
      await page.getByText("Showing the test rules, version 1.").waitFor();
      await page.getByRole("cell", { name: "1 (current)" }).waitFor();

      // Saved: the API answers what the page shows.
      const saved = (await page.evaluate(async () => (await fetch("/api/admin/routing?livemode=false")).json())) as { rules: { id: string }[] };
      expect(saved).toMatchObject({
        version: 1,
        maxProviders: 3,
        rules: [
          {
            name: "EU split",
            conditions: { currencies: ["EUR"], cardBrands: ["visa"] },
            target: { type: "split", splits: [{ provider: "vault_gateway_a", weight: 70 }, { provider: "vault_gateway_b", weight: 30 }] },
            caps: [{ provider: "vault_gateway_a", currency: "EUR", dailyAmount: 500000 }],
          },
          { name: "Big orders", conditions: { amountMin: 100000 }, target: { type: "provider", provider: "intent_gateway" } },
        ],
      });
      expect(saved.rules[0].id).toMatch(/^rul_/);
      await screenshot(page, "routing-rules");

      // Reorder and save again; then load version 1 back into the editor.
      await page.getByRole("button", { name: "Move Big orders up" }).click();
      await page.getByRole("button", { name: "Save as a new version" }).click();
      await page.getByText("Saved version 2 of the test routing rules.").waitFor();
      const rows = page.getByRole("table", { name: "Routing rules, in the order they are read" }).getByRole("row");
      expect(await rows.nth(1).getByRole("cell").nth(1).textContent()).toBe("Big orders");
      await page.getByRole("button", { name: "Load version 1" }).click();
      await page.getByText("Loaded version 1: save to make it the current rules again.").waitFor();
      expect(await rows.nth(1).getByRole("cell").nth(1).textContent()).toBe("EU split");
      expect(await seriousViolations(page)).toEqual([]);

      // The Live switch shows the live rules, apart from the test ones.
      await page.getByRole("radio", { name: "Live" }).check();
      await page.getByText("Showing the live rules, version none saved yet").waitFor();
      await page.getByText("No version saved yet for live orders.").waitFor();
    } finally {
      await page.close();
    }
  });
});
