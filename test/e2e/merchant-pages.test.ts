// Browser: issue 18's back-office items 14, 15, 18. A merchant without any salesperson makes a
// lasting payment link, a buyer opens and pays it, the merchant disables it and it shows "no longer
// available"; 2FA is turned on, its recovery codes saved, and a recovery code signs in; the audit
// log shows names and one record's details.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_CHROMIUM, payOnCheckoutPage, registerInBrowser, screenshot, seriousViolations, startStack, totpCodeAt, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("merchant pages in Chromium", () => {
  it("a payment link without any salesperson: made, opened, paid, disabled", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Lena Linkmaker");
      await page.getByRole("link", { name: "Payment links" }).click();
      await page.getByRole("heading", { name: "Payment links" }).waitFor();
      // The quick link says why it cannot be used yet; the payment link needs nobody.
      await page.getByTestId("quick-link-needs-salesperson").waitFor();
      expect(await page.getByRole("button", { name: "Generate link" }).isDisabled()).toBe(true);
      await page.getByText("No payment links yet.").waitFor();

      const form = page.getByRole("form", { name: "New payment link" });
      await form.getByLabel("Product name").fill("Tea sampler");
      await form.getByLabel("Description (optional)").fill("Six loose-leaf teas");
      await form.getByLabel("Price per unit").fill("15.50");
      await form.getByRole("button", { name: "Create payment link" }).click();
      const url = (await page.getByTestId("payment-link").textContent())!;
      expect(url).toMatch(/\/l\/[A-Za-z0-9_-]{22}$/);
      await page.getByRole("cell", { name: "Tea sampler", exact: true }).waitFor();
      await page.getByRole("cell", { name: "active", exact: true }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "payment-links");

      // A buyer opens the lasting link and pays the stored price.
      await payOnCheckoutPage(stack, new URL(url).pathname, "$15.50");

      // Disabled (asked first), the link shows a "no longer available" page.
      await page.getByRole("button", { name: "Disable the link for Tea sampler" }).click();
      await page.getByRole("button", { name: "Disable link" }).click();
      await page.getByRole("cell", { name: "disabled", exact: true }).waitFor();
      const buyer = await stack.browser.newPage();
      const answer = await buyer.goto(`${stack.base}${new URL(url).pathname}`);
      expect(answer?.status()).toBe(410);
      await buyer.getByRole("heading", { name: "This link is no longer available" }).waitFor();
      await buyer.close();
    } finally {
      await page.close();
    }
  });

  it("2FA on, recovery codes saved, sign-in with a recovery code; the audit log names who and shows a record", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    const email = `rita-${Date.now()}@example.com`;
    const password = "a long enough password 123";
    try {
      await page.goto(`${stack.base}/login`);
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByLabel("Your name").fill("Rita Recovery");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel(/^Password/).fill(password);
      await page.getByLabel("Organization name").fill("Rita Goods");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Two-factor authentication" }).click();
      const secret = (await page.getByTestId("totp-secret").textContent())!;
      // Visiting again keeps the same key (a scanned code stays valid).
      await page.reload();
      expect(await page.getByTestId("totp-secret").textContent()).toBe(secret);
      await page.getByLabel("Code from the app").fill(totpCodeAt(secret, Date.now()));
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByTestId("recovery-codes").waitFor();
      const codes = await page.getByTestId("recovery-codes").locator("li").allTextContents();
      expect(codes).toHaveLength(10);
      // The "on" status is said once.
      expect(await page.getByText(/Two-factor authentication is on/).count()).toBe(1);
      expect(await page.getByRole("link", { name: "Download codes" }).getAttribute("download")).toBe("recovery-codes.txt");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "2fa-recovery-codes");
      await page.getByRole("button", { name: "I saved my codes" }).click();
      await page.getByText("10 of 10 recovery codes left").waitFor();
      expect(await page.getByText(/Two-factor authentication is on/).count()).toBe(1);

      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${stack.base}/login`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
      await page.getByRole("button", { name: "Lost your device? Use a recovery code" }).click();
      await page.getByLabel("Recovery code").fill(codes[0]!);
      await page.getByRole("button", { name: "Verify" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Two-factor authentication" }).click();
      await page.getByText("9 of 10 recovery codes left").waitFor();

      // The audit log: the actor by name and email, and one record's details as stored.
      await page.getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("cell", { name: "two_factor.recovery_code_use", exact: true }).waitFor();
      const row = page.locator("tbody tr", { has: page.getByRole("cell", { name: "two_factor.recovery_code_use", exact: true }) });
      expect(await row.locator("td").nth(3).textContent()).toBe(`Rita Recovery (${email})`);
      await row.getByRole("button", { name: /^Details of two_factor.recovery_code_use/ }).click();
      const record = page.getByRole("region", { name: "Audit record" });
      await record.getByRole("heading", { name: "two_factor.recovery_code_use" }).waitFor();
      expect(JSON.parse((await record.getByTestId("audit-details").textContent())!)).toEqual({ recoveryCodesLeft: 9 });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "audit-record");
    } finally {
      await page.close();
    }
  });
});
