// Browser: the back office after registration: add a salesperson, generate a checkout link for
// them, a customer pays through it, the commission shows up and is approved by a bulk action; a
// user is added (a too-short password first shows the API's refusal); a brand is created and
// chosen in the switcher; a second sale in euros is shown in euros; the salesperson sees each
// currency apart in the portal; axe finds no serious violation on
// the commissions, dashboard and portal pages; the dashboard shows the order and its revenue; the
// magic-link request answers on the login page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, NO_CHROMIUM, payOnCheckoutPage, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** A customer opens a generated checkout link (on this server) and pays `price` with the demo card. */
const payThroughLink = (link: string, price: string) => payOnCheckoutPage(stack, new URL(link).pathname, price);

describe.skipIf(NO_CHROMIUM)("administration pages in Chromium", () => {
  it("salesperson → checkout link → paid → commission approved; users and brands", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await page.goto(`${stack.base}/login`);
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByLabel("Your name").fill("Owen Owner");
      await page.getByLabel("Email").fill(`owen-${Date.now()}@example.com`);
      await page.getByLabel(/^Password/).fill("a long enough password 123");
      await page.getByLabel("Organization name").fill("Owen Goods");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();

      await page.getByRole("link", { name: "Salespeople" }).click();
      await page.getByLabel("Name").fill("Sam Seller");
      const samEmail = `sam-${Date.now()}@example.com`;
      await page.getByLabel("Email").fill(samEmail);
      await page.getByLabel("Portal password").fill("sam's long password 42");
      await page.getByLabel("Commission rate in % (optional)").fill("10");
      await page.getByRole("button", { name: "Add salesperson" }).click();
      await page.getByRole("cell", { name: "Sam Seller" }).waitFor();

      await page.getByRole("link", { name: "Payment links" }).click();
      const quick = page.getByRole("form", { name: "Quick link" });
      await quick.getByLabel("Salesperson").locator("option", { hasText: "Sam Seller" }).waitFor({ state: "attached" });
      await quick.getByLabel("Product name").fill("Roaster deluxe");
      await quick.getByLabel("Price").fill("120.00");
      await page.getByRole("button", { name: "Generate link" }).click();
      const link = (await page.getByTestId("generated-link").textContent())!;
      expect(link).toMatch(/\/c\/[A-Za-z0-9_-]+$/);

      // The customer opens the short link (on this server) and pays.
      await payThroughLink(link, "$120.00");

      await page.getByRole("link", { name: "Commissions" }).click();
      await page.getByRole("cell", { name: "Sam Seller" }).waitFor();
      expect(await page.locator("tbody tr td:nth-child(5)").allTextContents()).toEqual(["$12.00"]);
      await page.getByRole("checkbox").first().check();
      await page.getByLabel("Action for selected").selectOption("approve");
      await page.getByLabel("Notes (optional)").fill("checked by Owen");
      await page.getByRole("button", { name: "Apply to 1 selected" }).click();
      await page.getByText("1 updated.").waitFor();
      await page.getByRole("cell", { name: "approved (checked by Owen)" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // The filter finds it under its new status only.
      await page.getByLabel("Status").selectOption("pending");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.getByText("No commissions match.").waitFor();

      await page.getByRole("link", { name: "Users" }).click();
      await page.getByLabel("Name").fill("Mia Member");
      await page.getByLabel("Email").fill(`mia-${Date.now()}@example.com`);
      await page.getByLabel("Initial password").evaluate((el) => el.removeAttribute("minlength"));
      await page.getByLabel("Initial password").fill("short");
      await page.getByRole("button", { name: "Add user" }).click();
      await page.getByRole("status").filter({ hasText: "Password must be 12 to 128 characters" }).waitFor();
      await page.getByLabel("Initial password").fill("mia's long password 99");
      await page.getByRole("button", { name: "Add user" }).click();
      await page.getByRole("cell", { name: "Mia Member" }).waitFor();

      await page.getByRole("link", { name: "Organizations & brands" }).click();
      await page.getByLabel("New brand name").fill("Owen Outlet");
      await page.getByLabel("Slug", { exact: true }).fill("owen-outlet");
      await page.getByRole("button", { name: "Create brand" }).click();
      await page.getByText("Created Owen Outlet.").waitFor();
      const brand = page.getByLabel("Brand", { exact: true });
      await brand.locator("option", { hasText: "Owen Outlet" }).waitFor({ state: "attached" });
      const outlet = await brand.locator("option", { hasText: "Owen Outlet" }).getAttribute("value");
      await brand.selectOption(outlet!);
      await page.getByText("Owen Outlet (owen-outlet), current").waitFor();

      // Commissions are the brand's: none in the new brand, the one paid above in the default brand.
      await page.getByRole("link", { name: "Dashboard" }).click();
      await page.getByTestId("stat-commissions").filter({ hasText: /^0$/ }).waitFor();
      await page.getByTestId("stat-orders").filter({ hasText: /^0$/ }).waitFor();
      await page.getByText("No orders in this period.").waitFor();
      const main = await brand.locator("option", { hasText: "Owen Goods" }).getAttribute("value");
      await brand.selectOption(main!);
      await page.getByTestId("stat-commissions").filter({ hasText: /^1$/ }).waitFor();
      // The paid order was paid in demo mode: a test order. Under Live it is not counted; under Test
      // (the brand's mode without real credentials) it is, with the TEST banner (CONTRACT §39).
      await page.getByRole("radio", { name: "Live" }).check();
      await page.getByTestId("stat-orders").filter({ hasText: /^0$/ }).waitFor();
      expect(await page.getByTestId("test-banner").count()).toBe(0);
      await page.getByRole("radio", { name: "Test" }).check();
      await page.getByTestId("test-banner").waitFor();
      // The paid order, its revenue and the day it fell on (GET /api/admin/dashboard).
      await page.getByTestId("stat-orders").filter({ hasText: /^1$/ }).waitFor();
      expect(await page.getByTestId("stat-revenue").textContent()).toBe("$120.00");
      expect(await page.getByTestId("revenue-chart").getAttribute("aria-label")).toMatch(/^Revenue per day: \d{4}-\d{2}-\d{2}: \$120\.00$/);
      // Axes with round values, the period's first, middle and last day; a tooltip on the day's bar.
      expect(await page.getByTestId("chart-y-axis").locator("span").allTextContents()).toEqual(["$200.00", "$100.00", "$0.00"]);
      const days = await page.getByTestId("chart-x-axis").locator("span").allTextContents();
      expect(days).toHaveLength(3);
      expect(days.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))).toBe(true);
      const bar = page.locator("[data-testid=revenue-chart] > div[data-tip$=': $120.00']");
      await bar.hover();
      expect(await page.evaluate(`getComputedStyle(document.querySelector("[data-testid=revenue-chart] > div[data-tip$=': $120.00']"), "::after").content`)).toMatch(/^"\d{4}-\d{2}-\d{2}: \$120\.00"$/);
      await page.getByText("Figures per day").click();
      await page.getByRole("cell", { name: "$120.00" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "admin");

      // A second sale in euros: its commission is shown in euros, never added to the dollars.
      await page.getByRole("link", { name: "Payment links" }).click();
      const quickAgain = page.getByRole("form", { name: "Quick link" });
      await quickAgain.getByLabel("Salesperson").locator("option", { hasText: "Sam Seller" }).waitFor({ state: "attached" });
      await quickAgain.getByLabel("Product name").fill("Grinder");
      await quickAgain.getByLabel("Price").fill("50.00");
      await quickAgain.getByLabel("Currency").fill("EUR");
      await page.getByRole("button", { name: "Generate link" }).click();
      await page.getByTestId("generated-link").filter({ hasNotText: link }).waitFor();
      await payThroughLink((await page.getByTestId("generated-link").textContent())!, "€50.00");
      await page.getByRole("link", { name: "Commissions" }).click();
      await page.getByRole("cell", { name: "€5.00" }).waitFor();
      expect(await page.locator("tbody tr td:nth-child(5)").allTextContents()).toEqual(["€5.00", "$12.00"]);

      // The salesperson sees each currency apart in the portal (a wrong password first).
      const portal = await stack.browser.newPage({ locale: "en-US" });
      await portal.goto(`${stack.base}/portal`);
      await portal.getByLabel("Email").fill(samEmail);
      await portal.getByLabel("Password").fill("not the password");
      await portal.getByRole("button", { name: "Sign in" }).click();
      await portal.getByRole("alert").filter({ hasText: /invalid/i }).waitFor();
      await portal.getByLabel("Password").fill("sam's long password 42");
      await portal.getByRole("button", { name: "Sign in" }).click();
      await portal.getByRole("heading", { name: "Hello, Sam Seller" }).waitFor();
      expect(await portal.getByTestId("portal-count").textContent()).toBe("2");
      expect(await portal.getByTestId("portal-USD-approved").textContent()).toBe("$12.00");
      expect(await portal.getByTestId("portal-USD-pending").textContent()).toBe("$0.00");
      expect(await portal.getByTestId("portal-USD-total").textContent()).toBe("$12.00");
      expect(await portal.getByTestId("portal-EUR-pending").textContent()).toBe("€5.00");
      expect(await portal.getByTestId("portal-EUR-total").textContent()).toBe("€5.00");
      expect(await portal.getByTestId("portal-EUR-approved").textContent()).toBe("€0.00");
      // Its sales themselves, newest first (issue 36 item 14): order amount, commission, status.
      const sales = portal.getByRole("table", { name: "Your sales" }).getByTestId("portal-sale");
      expect(await sales.count()).toBe(2);
      expect((await sales.nth(0).locator("td").allTextContents()).slice(2)).toEqual(["€50.00", "€5.00", "pending"]);
      expect((await sales.nth(1).locator("td").allTextContents()).slice(2)).toEqual(["$120.00", "$12.00", "approved"]);
      expect(await seriousViolations(portal)).toEqual([]);
      await screenshot(portal, "portal");
      await portal.close();

      // Without a hosting platform, Domains says so in plain words (no variable names) and offers no form.
      await page.getByRole("link", { name: "Domains" }).click();
      await page.getByTestId("hosting-not-configured").waitFor();
      expect(await page.getByText(/HOSTING_|missing/).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Add domain" }).count()).toBe(0);

      // Deleting a brand asks first: cancel keeps it, confirm deletes it.
      await page.getByRole("link", { name: "Organizations & brands" }).click();
      await page.getByRole("button", { name: "Delete brand Owen Outlet" }).click();
      await page.getByText("Delete Owen Outlet? It leaves this list; an owner can restore it.").waitFor();
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("button", { name: "Delete brand Owen Outlet" }).click();
      await page.getByRole("button", { name: "Confirm delete" }).click();
      await page.getByText("Deleted Owen Outlet.").waitFor();
      await page.getByLabel("Brand", { exact: true }).locator("option", { hasText: "Owen Outlet" }).waitFor({ state: "detached" });

      // On a phone the menu folds behind a Menu button: the page starts near the top, not below the menu.
      await page.setViewportSize({ width: 390, height: 844 });
      const menu = page.getByRole("button", { name: "Menu" });
      await menu.waitFor();
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await page.getByRole("link", { name: "Orders" }).isVisible()).toBe(false);
      const navHeight = Number(await page.evaluate("document.querySelector('nav').getBoundingClientRect().height"));
      expect(navHeight).toBeLessThan(120);
      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "admin-phone");
      await page.setViewportSize({ width: 1280, height: 800 });
    } finally {
      await page.close();
    }
  });

  it("the magic-link request answers the same message for any address", async () => {
    const page = await stack.browser.newPage();
    try {
      await page.goto(`${stack.base}/login`);
      await page.getByRole("button", { name: "Email link" }).click();
      await page.getByLabel("Email").fill("nobody@example.com");
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      const expected = (await api(stack.base, "/api/auth/magic-link", { email: "someone-else@example.com" })).body.message;
      await page.getByRole("status").filter({ hasText: expected }).waitFor();
      await screenshot(page, "login-magic-link");
    } finally {
      await page.close();
    }
  });
});
