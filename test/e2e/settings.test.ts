// Browser (issue 8 test 4): an owner configures a provider and sees its status turn configured (a
// malformed URL first shows the API's refusal), adds a webhook endpoint on a real local receiver
// and sends a test (the receiver gets it, signed with the secret shown once; the attempt is listed),
// then finds both changes in the audit log. Axe finds no serious violation on those pages.
import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { api, checkoutToken, NO_CHROMIUM, registerInBrowser, PRODUCT_SVG, screenshot, seriousViolations, startMerchant, startStack, type Stack } from "./support.js";

let stack: Stack;
/** The owner's browser context (signed in by the first test, used by the next). */
let owner: BrowserContext;
let receiver: Awaited<ReturnType<typeof startMerchant>>;
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  if (NO_CHROMIUM) return;
  receiver = await startMerchant(async (req, res, url) => {
    if (url.pathname === "/logo.svg") {
      res.setHeader("content-type", "image/svg+xml");
      res.end(PRODUCT_SVG);
      return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({ path: url.pathname, headers: req.headers, body });
    res.statusCode = 204;
    res.end();
  });
  // The receiver is on 127.0.0.1: endpoints on loopback are refused unless this is set.
  stack = await startStack({ ALLOW_PRIVATE_WEBHOOK_URLS: "true" });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

describe.skipIf(NO_CHROMIUM)("provider settings and webhooks in Chromium", () => {
  it("configure a provider → configured; add a webhook endpoint and send a test; both in the audit log", async () => {
    owner = await stack.browser.newContext({ locale: "en-US" });
    const page = await owner.newPage();
    try {
      // The first registration adopts the default brand (CONTRACT §27): the one this host serves.
      await registerInBrowser(page, stack.base, "Paula Owner");

      await page.getByRole("link", { name: "Provider settings" }).click();
      await page.getByRole("heading", { name: "Provider settings" }).waitFor();
      expect(await page.getByTestId("status-vault_gateway_b").textContent()).toBe("demo");
      await page.locator("summary", { hasText: "vault_gateway_b" }).click();
      const form = page.getByRole("form", { name: "Settings of vault_gateway_b" });
      await form.getByLabel("Security key (required)").fill("vgb_live_key_0123456789");
      await form.getByLabel("Base URL").fill("not a url");
      await form.getByRole("button", { name: "Save vault_gateway_b" }).click();
      await page.getByRole("status").filter({ hasText: "settings.baseUrl must be an http(s) URL" }).waitFor();
      expect(await page.getByTestId("status-vault_gateway_b").textContent()).toBe("demo");

      // A local base URL: a configured provider talks to its gateway, and no test traffic may leave this machine.
      await form.getByLabel("Base URL").fill(`${receiver.url}/gateway`);
      await form.getByRole("button", { name: "Save vault_gateway_b" }).click();
      await page.getByRole("status").filter({ hasText: "Saved vault_gateway_b: configured." }).waitFor();
      await page.getByTestId("status-vault_gateway_b").filter({ hasText: /^configured$/ }).waitFor();
      // The secret comes back masked, never in full: in the form and in the API.
      await form.getByText("Remove the stored security key (vgb_…6789)").waitFor();
      expect(await form.getByLabel("Security key (required)").inputValue()).toBe("");
      const settings = await page.request.get(`${stack.base}/api/admin/settings`);
      const body = await settings.json();
      expect(body.status.vault_gateway_b).toBe("configured");
      expect(body.settings.vault_gateway_b.securityKey).toBe("vgb_…6789");
      expect(await seriousViolations(page)).toEqual([]);

      // Issue 33: the provider's sandbox saved as its test credentials, apart from the live ones.
      await page.getByRole("group", { name: "Credentials of vault_gateway_b to edit" }).getByLabel("Test (sandbox)").check();
      const sandboxForm = page.getByRole("form", { name: "Test (sandbox) settings of vault_gateway_b" });
      expect(await sandboxForm.getByLabel("Base URL").inputValue()).toBe("");
      await sandboxForm.getByLabel("Security key (required)").fill("vgb_sandbox_key_0123456789");
      await sandboxForm.getByLabel("Base URL").fill(`${receiver.url}/sandbox`);
      await sandboxForm.getByRole("button", { name: "Save vault_gateway_b test (sandbox) credentials" }).click();
      await page.getByRole("status").filter({ hasText: "Saved vault_gateway_b test (sandbox) credentials: configured" }).waitFor();
      await page.getByTestId("test-status-vault_gateway_b").filter({ hasText: /^sandbox$/ }).waitFor();
      const both = await (await page.request.get(`${stack.base}/api/admin/settings`)).json();
      expect(both.settings.vault_gateway_b).toMatchObject({ securityKey: "vgb_…6789", baseUrl: `${receiver.url}/gateway` });
      expect(both.testSettings.vault_gateway_b).toMatchObject({ securityKey: "vgb_…6789", baseUrl: `${receiver.url}/sandbox` });
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("heading", { name: "Webhook endpoints" }).waitFor();
      await page.getByText("No endpoints yet.").waitFor();
      const url = `${receiver.url}/hooks/orders`;
      await page.getByLabel("URL").fill(url);
      await page.getByLabel("Name (optional)").fill("Order sync");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByRole("status").filter({ hasText: `Added ${url}.` }).waitFor();
      const secret = (await page.getByTestId("webhook-secret").textContent())!;
      expect(secret).toMatch(/^whsec_/);
      // The listing shows the secret masked only.
      await page.getByRole("cell", { name: "Order sync" }).waitFor();
      expect(await page.getByRole("row", { name: /Order sync/ }).textContent()).not.toContain(secret);

      await page.getByRole("button", { name: `Send test to ${url}` }).click();
      await page.getByRole("status").filter({ hasText: `Test delivered to ${url} (HTTP 204).` }).waitFor();
      expect(received).toHaveLength(1);
      const got = received[0]!;
      expect(got.path).toBe("/hooks/orders");
      expect(JSON.parse(got.body)).toMatchObject({ type: "webhook.test" });
      // Signed the Standard Webhooks way with the secret shown above.
      const id = String(got.headers["webhook-id"]);
      const timestamp = String(got.headers["webhook-timestamp"]);
      const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`${id}.${timestamp}.${got.body}`).digest("base64");
      expect(String(got.headers["webhook-signature"]).split(" ")).toContain(`v1,${expected}`);
      // The delivery and its attempt are listed.
      const deliveries = page.getByRole("region", { name: `Deliveries to ${url}` });
      await deliveries.getByRole("heading", { name: /webhook\.test — succeeded, 1 attempt/ }).waitFor();
      const attempt = deliveries.locator("tbody tr").first();
      expect(await attempt.locator("td").nth(2).textContent()).toBe("204");
      expect(await attempt.locator("td").nth(4).textContent()).toBe("succeeded");
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("heading", { name: "Audit log" }).waitFor();
      for (const action of ["settings.update", "webhook_endpoint.create", "webhook_endpoint.test"]) await page.getByRole("cell", { name: action, exact: true }).first().waitFor();
      // The refused save changed nothing and left no success record: one settings.update per saved set (live, test).
      await page.getByLabel("Action").fill("settings.update");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.getByText("Page 1 of 1 (2 in all)").waitFor();
      expect(await page.getByRole("cell", { name: "provider settings vault_gateway_b" }).count()).toBe(2);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "settings-webhooks-audit");

      // Deleting the endpoint asks first; confirmed, it is gone.
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("button", { name: `Delete ${url}` }).click();
      await page.getByText(`Delete ${url}? It receives no more events.`).waitFor();
      await page.getByRole("button", { name: "Confirm delete" }).click();
      await page.getByRole("status").filter({ hasText: `Deleted ${url}.` }).waitFor();
      await page.getByText("No endpoints yet.").waitFor();
    } finally {
      await page.close();
    }
  });

  it("the brand's logo and colour, set in the administration, show on the checkout and upsell pages", async () => {
    const page = await owner.newPage();
    try {
      await page.goto(`${stack.base}/admin/organizations`);
      const form = page.getByRole("form", { name: "Brand look" });
      await form.getByLabel(/^Colour/).fill("teal");
      await form.getByRole("button", { name: "Save look" }).click();
      // The browser's own pattern check stops a malformed colour before the API.
      expect(await page.evaluate("document.getElementById('color').validity.patternMismatch")).toBe(true);
      await form.getByLabel(/^Logo URL/).fill("ftp://example.com/logo.svg");
      await form.getByLabel(/^Colour/).fill("#0f766e");
      await form.getByRole("button", { name: "Save look" }).click();
      await page.getByRole("status").filter({ hasText: "logoUrl must be an https URL" }).waitFor();
      await form.getByLabel(/^Logo URL/).fill(`${receiver.url}/logo.svg`);
      await form.getByLabel(/^Brand name/).fill("Tea House");
      await form.getByRole("button", { name: "Save look" }).click();
      await page.getByRole("status").filter({ hasText: `Saved Tea House: logo ${receiver.url}/logo.svg, colour #0f766e` }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // The form shows what is stored, also after a reload; the brand switcher shows the new name.
      await page.reload();
      await page.getByRole("form", { name: "Brand look" }).getByLabel(/^Colour/).waitFor();
      expect(await page.getByRole("form", { name: "Brand look" }).getByLabel(/^Colour/).inputValue()).toBe("#0f766e");
      expect(await page.getByRole("form", { name: "Brand look" }).getByLabel(/^Logo URL/).inputValue()).toBe(`${receiver.url}/logo.svg`);
      await page.getByLabel("Brand", { exact: true }).locator("option", { hasText: "Tea House" }).waitFor({ state: "attached" });
      const branding = await (await page.request.get(`${stack.base}/api/admin/branding`)).json();
      expect(branding).toEqual({ companyName: "Tea House", logoUrl: `${receiver.url}/logo.svg`, color: "#0f766e" });

      const customer = await stack.browser.newPage({ locale: "en-US" });
      // vault_gateway_b is configured (not demo) since the first test: these tokens name a demo provider.
      const token = await checkoutToken({ orderId: `brand-${Date.now()}`, amount: 1500, currency: "USD", productName: "Tea tin", provider: "vault_gateway_a" });
      await customer.goto(`${stack.base}/checkout/${token}`);
      await customer.getByTestId("brand-name").filter({ hasText: branding.companyName }).waitFor();
      const logo = customer.getByTestId("brand-logo");
      expect(await logo.getAttribute("src")).toBe(`${receiver.url}/logo.svg`);
      // Browser-side expressions as strings: the tests are type-checked without the DOM library.
      await customer.waitForFunction("document.querySelector('[data-testid=brand-logo]')?.naturalWidth > 0");
      expect(await customer.evaluate("getComputedStyle(document.querySelector('.brandbar')).backgroundColor")).toBe("rgb(15, 118, 110)");
      expect(await customer.evaluate("getComputedStyle(document.querySelector('main button[type=submit]')).backgroundColor")).toBe("rgb(15, 118, 110)");
      expect(await seriousViolations(customer)).toEqual([]);

      // The upsell page after a paid checkout shows the same look.
      const orderId = `brand-up-${Date.now()}`;
      expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken({ orderId, amount: 1500, currency: "USD", productName: "Tea tin", provider: "vault_gateway_a" }), provider: "vault_gateway_a" })).status).toBe(200);
      const paid = await api(stack.base, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: 1500, currency: "USD", cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" });
      const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: paid.body.transactionId, provider: "vault_gateway_a", customerEmail: "ada@example.com", customerName: "Ada Lovelace", amount: 1500, currency: "USD" });
      expect(done.status).toBe(200);
      const session = await api(stack.base, "/api/upsell/create-session", { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken: done.body.paymentMethodToken, provider: "vault_gateway_a", offers: [{ id: "spoon", name: "Tea spoon", price: 500 }] });
      expect(session.status).toBe(200);
      await customer.goto(`${stack.base}/upsell/${session.body.sessionId}`);
      await customer.getByTestId("offer-name").waitFor();
      await customer.getByTestId("brand-name").filter({ hasText: branding.companyName }).waitFor();
      expect(await customer.getByTestId("brand-logo").getAttribute("src")).toBe(`${receiver.url}/logo.svg`);
      expect(await customer.evaluate("getComputedStyle(document.querySelector('.brandbar')).backgroundColor")).toBe("rgb(15, 118, 110)");
      expect(await seriousViolations(customer)).toEqual([]);
      await screenshot(customer, "upsell-branded");
      await customer.close();
    } finally {
      await page.close();
      await owner.close();
    }
  });
});
