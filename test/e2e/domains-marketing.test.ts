// Browser: the domains page (add → DNS instructions → a verify that fails while DNS is missing →
// verify once the record and the platform agree) against a fake hosting platform and a fake DNS
// server on 127.0.0.1; the marketing lists page (an unconfigured integration's refusal, then an
// API key and base URL stored through the settings form, a list renamed) against fake integrations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostingEnv, startFakeHosting, type FakeHosting } from "../../src/domains/fake-hosting.js";
import { startFakeIntegrations, type FakeIntegrations } from "../../src/marketing/fake-integrations.js";
import { startFakeDns, type FakeDns } from "../support/fake-dns.js";
import { NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
let hosting: FakeHosting;
let dns: FakeDns;
let lists: FakeIntegrations;

beforeAll(async () => {
  if (NO_CHROMIUM) return;
  hosting = await startFakeHosting();
  dns = await startFakeDns();
  lists = await startFakeIntegrations();
  lists.lists.email_list_a = [
    { id: "XyZ1", name: "Newsletter" },
    { id: "XyZ2", name: "Buyers" },
  ];
  stack = await startStack({ ...hostingEnv(hosting), DNS_SERVERS: dns.server, ALLOW_PRIVATE_WEBHOOK_URLS: "true" });
});
afterAll(async () => {
  await stack?.close();
  await hosting?.close();
  await dns?.close();
  await lists?.close();
});

describe.skipIf(NO_CHROMIUM)("domains and marketing lists in Chromium", () => {
  it("adds a domain, shows its DNS records, verifies it once DNS is in place", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Dora Owner");
      await page.getByRole("link", { name: "Domains" }).click();
      await page.getByText("No custom domains yet.").waitFor();
      await page.getByLabel("Host name").fill("not a domain");
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.getByRole("status").filter({ hasText: /domain/i }).and(page.locator(".error")).waitFor();

      await page.getByLabel("Host name").fill("pay.dora-goods.com");
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.getByRole("status").filter({ hasText: "Added pay.dora-goods.com." }).waitFor();
      const card = page.getByRole("region", { name: "pay.dora-goods.com" });
      await card.getByText("Not verified").waitFor();
      expect(await card.locator("pre").textContent()).toContain("CNAME");
      expect(hosting.domains.has("pay.dora-goods.com")).toBe(true);

      // No DNS record yet: the verify answer says what is missing.
      await card.getByRole("button", { name: "Verify pay.dora-goods.com" }).click();
      await page.getByRole("status").filter({ hasText: "pay.dora-goods.com is not verified yet: DNS not configured" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      dns.set("pay.dora-goods.com", { type: "CNAME", domain: "cname.vercel-dns.com." });
      hosting.dnsConfig.set("pay.dora-goods.com", { configuredBy: "CNAME", misconfigured: false });
      await card.getByRole("button", { name: "Verify pay.dora-goods.com" }).click();
      await page.getByRole("status").filter({ hasText: "pay.dora-goods.com is verified." }).waitFor();
      await card.getByText("Verified", { exact: true }).waitFor();
      expect(await card.locator("pre").count()).toBe(0);
      const listed = await (await page.request.get(`${stack.base}/api/admin/domains`)).json();
      expect(listed.domains).toMatchObject([{ domain: "pay.dora-goods.com", verified: true }]);

      await card.getByRole("button", { name: "Remove pay.dora-goods.com" }).click();
      await card.getByRole("button", { name: "Confirm remove" }).click();
      await page.getByText("No custom domains yet.").waitFor();
      expect(hosting.domains.has("pay.dora-goods.com")).toBe(false);
      await screenshot(page, "admin-domains");
    } finally {
      await page.close();
    }
  });

  it("names marketing lists once the integration's key is stored", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Mark Owner");
      await page.getByRole("link", { name: "Marketing lists" }).click();
      // Said in plain words, once, with the way to fix it; no variable or field names.
      const notice = page.getByTestId("integration-not-configured");
      expect(await notice.textContent()).toBe("Email lists A is not connected for this brand yet: store its API key under Provider settings, then come back here to name its lists.");
      expect(await page.getByText(/not configured|apiKey/).count()).toBe(0);

      await notice.getByRole("link", { name: "Provider settings" }).click();
      await page.locator("summary", { hasText: "email_list_a" }).click();
      const form = page.getByRole("form", { name: "Settings of email_list_a" });
      await form.getByLabel("API key (required)").fill("pk_list_a_secret_1234");
      await form.getByLabel("Base URL").fill(lists.baseUrl);
      await form.getByRole("button", { name: "Save email_list_a" }).click();
      await page.getByTestId("status-email_list_a").filter({ hasText: /^configured$/ }).waitFor();

      await page.getByRole("link", { name: "Marketing lists" }).click();
      await page.getByRole("cell", { name: "Newsletter" }).waitFor();
      await page.getByLabel("Display name of Newsletter").fill("Weekly news");
      await page.getByRole("button", { name: "Save names" }).click();
      await page.getByRole("status").filter({ hasText: "Saved: 1 changed." }).waitFor();
      const answer = await (await page.request.get(`${stack.base}/api/admin/email_list_a/lists`)).json();
      expect(answer.lists).toEqual([
        { listId: "XyZ1", originalName: "Newsletter", displayName: "Weekly news" },
        { listId: "XyZ2", originalName: "Buyers", displayName: "Buyers" },
      ]);
      expect(await page.getByLabel("Display name of Newsletter").inputValue()).toBe("Weekly news");
      // The other integrations are not configured for this brand.
      await page.getByRole("button", { name: "SMS segments" }).click();
      await page.getByTestId("integration-not-configured").filter({ hasText: "SMS segments is not connected for this brand yet" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "admin-marketing");
    } finally {
      await page.close();
    }
  });
});
