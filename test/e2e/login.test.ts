// Browser: a merchant registers at /login, lands in /admin, logs out and in, turns on 2FA with a
// code computed from the key the page shows, logs out, and logs in again through the 2FA step;
// the audit log page lists what happened. Also the social sign-in error of an unconfigured provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_CHROMIUM, screenshot, startStack, totpCodeAt, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("login and 2FA in Chromium", () => {
  it("register → log out → log in → 2FA on → log out → log in with the code", async () => {
    const page = await stack.browser.newPage();
    const email = `grace-${Date.now()}@example.com`;
    const password = "correct horse battery staple 42";
    const signIn = async () => {
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
    };
    try {
      await page.goto(`${stack.base}/login`);
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByLabel("Your name").fill("Grace Hopper");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel(/^Password/).fill(password);
      await page.getByLabel("Organization name").fill("Hopper Coffee");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      // The switcher shows the new organization and its default brand.
      expect(await page.getByLabel("Organization").locator("option").allTextContents()).toEqual(["Hopper Coffee"]);

      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${stack.base}/login`);
      await signIn();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Two-factor authentication" }).click();
      const secret = (await page.getByTestId("totp-secret").textContent())!;
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      expect(await page.getByAltText("QR code for your authenticator app").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
      await page.getByLabel("Code from the app").fill(totpCodeAt(secret, Date.now()));
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByTestId("2fa-enabled").waitFor();

      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${stack.base}/login`);
      await signIn();
      await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
      expect(new URL(page.url()).searchParams.get("step")).toBe("2fa");
      // A wrong code is refused with the API's message, and the step stays.
      await page.getByLabel("Authentication code").fill("000000");
      await page.getByRole("button", { name: "Verify" }).click();
      await page.getByTestId("login-error").filter({ hasText: "Invalid code" }).waitFor();
      // The next 30 s step's code: a code is accepted once, and the one used to turn 2FA on may still be current.
      await page.getByLabel("Authentication code").fill(totpCodeAt(secret, Date.now() + 30_000));
      await page.getByRole("button", { name: "Verify" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("heading", { name: "Audit log" }).waitFor();
      await page.getByRole("cell", { name: "two_factor.verify" }).first().waitFor();
      const actions = await page.locator("tbody tr td:nth-child(2)").allTextContents();
      expect(actions).toEqual(expect.arrayContaining(["user.register", "user.login", "user.logout", "two_factor.enable", "two_factor.verify"]));
      await screenshot(page, "login-2fa-audit");
    } finally {
      await page.close();
    }
  });

  it("no social button without configuration; an unconfigured provider comes back to /login with a clear error", async () => {
    const page = await stack.browser.newPage();
    try {
      const providers = page.waitForResponse((r) => r.url().endsWith("/api/auth/social-providers"));
      await page.goto(`${stack.base}/login`);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(await (await providers).json()).toEqual({ social_a: false, social_b: false });
      expect(await page.getByRole("link", { name: /Continue with provider/ }).count()).toBe(0);
      await page.goto(`${stack.base}/api/auth/social_a`);
      await page.waitForURL(`${stack.base}/login?error=social_not_configured`);
      expect(await page.getByTestId("login-error").textContent()).toBe("That sign-in provider is not configured on this service.");
      await screenshot(page, "login-social-error");
    } finally {
      await page.close();
    }
  });
});
