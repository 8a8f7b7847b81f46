// Browser (issue 15): an owner creates an API key with chosen scopes, copies its secret (shown once),
// sees it listed without the secret, uses it on /api/v1, revokes it after a confirmation (the key is
// refused from then on); creates a signing key and sees it listed. Axe finds no serious violation.
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

const checkoutWith = (secret: string) =>
  fetch(`${stack.base}/api/v1/checkouts`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ orderId: `e2e-${Date.now()}`, amount: 1200, currency: "USD", productName: "Mug" }),
  });

describe.skipIf(NO_CHROMIUM)("API keys page in Chromium", () => {
  it("create with scopes, copy once, list, revoke with confirmation; a signing key created and listed", async () => {
    const context = await stack.browser.newContext({ locale: "en-US" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.base });
    const page = await context.newPage();
    try {
      await registerInBrowser(page, stack.base, "Kira Owner");
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
      await page.getByText("No API keys yet.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByLabel("Name", { exact: true }).fill("shop server");
      await page.getByLabel("checkouts:write").check();
      await page.getByLabel("orders:read").check();
      await page.getByRole("button", { name: "Create API key" }).click();
      const secret = (await page.getByTestId("new-secret").textContent())!;
      expect(secret).toMatch(/^sk_test_[0-9A-Za-z]{40}$/); // a test key by default (issue 33)
      await page.getByRole("button", { name: "Copy secret" }).click();
      await page.getByRole("button", { name: "Copied" }).waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(secret);
      const row = page.getByRole("row", { name: /shop server/ });
      await row.waitFor();
      expect(await row.textContent()).toContain("checkouts:write, orders:read");
      expect(await row.textContent()).toContain(`${secret.slice(0, 16)}…`);
      expect(await seriousViolations(page)).toEqual([]);

      // Shown once: gone after "Done", and never in the list or after a reload.
      await page.getByRole("button", { name: "Done, I stored it" }).click();
      expect(await page.getByTestId("new-secret").count()).toBe(0);
      await page.reload();
      await page.getByRole("row", { name: /shop server/ }).waitFor();
      expect(await page.content()).not.toContain(secret);

      expect((await checkoutWith(secret)).status).toBe(201);
      await page.getByRole("button", { name: "Revoke shop server" }).click();
      await page.getByText("Revoke shop server? Servers using it stop working at once.").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Cancel" }).click();
      expect((await checkoutWith(secret)).status).toBe(201);
      await page.getByRole("button", { name: "Revoke shop server" }).click();
      await page.getByRole("button", { name: "Confirm revoke" }).click();
      await page.getByRole("status").filter({ hasText: "Revoked API key shop server." }).waitFor();
      await page.getByText("No API keys yet.").waitFor();
      const refused = await checkoutWith(secret);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });

      await page.getByRole("button", { name: "Create signing key" }).click();
      const kid = (await page.getByTestId("new-kid").textContent())!;
      expect(kid).toMatch(/^bsk_/);
      expect(await page.getByTestId("new-secret").textContent()).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await page.getByRole("row", { name: new RegExp(kid) }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "api-keys");
    } finally {
      await context.close();
    }
  });
});
