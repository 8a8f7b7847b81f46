// Browser (issue 36, merchants): what a merchant walking the back office in Chromium tripped over.
// Refunds ask first and refund once; webhook deliveries show each attempt's bodies and resend; orders
// have their own URL and show addresses and the card's brand and last four; stats name offers; no
// page scrolls sideways on a phone; and the smaller ones (item 14).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { api, checkoutToken, NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startMerchant, startStack, type Stack } from "./support.js";

let stack: Stack;
let receiver: Awaited<ReturnType<typeof startMerchant>>;
/** The webhook receiver answers 500 with a JSON body while this is true, then 200. */
let receiverDown = true;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  receiver = await startMerchant(async (req, res) => {
    for await (const _chunk of req);
    res.setHeader("content-type", "application/json");
    res.statusCode = receiverDown ? 500 : 200;
    res.end(JSON.stringify(receiverDown ? { error: "database down" } : { received: true }));
  });
  // The receiver is on 127.0.0.1: endpoints on loopback are refused unless this is set.
  stack = await startStack({ ALLOW_PRIVATE_WEBHOOK_URLS: "true" });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const CARD = { cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" };

/** A checkout of the brand paid at vault_gateway_b and completed, as a merchant's buyer does it. */
async function paidOrder(brandId: string, orderId: string, extra: Record<string, unknown> = {}, completion: Record<string, unknown> = {}): Promise<void> {
  const claims = { orderId, amount: 4999, currency: "EUR", productName: "Espresso kit", brandId, ...extra };
  expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider: "vault_gateway_b" })).status).toBe(200);
  const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: 4999, currency: "EUR", ...CARD });
  expect(paid.status).toBe(200);
  const done = await api(stack.base, "/api/checkout/complete", {
    orderId,
    transactionId: paid.body.transactionId,
    provider: "vault_gateway_b",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: 4999,
    currency: "EUR",
    ...completion,
  });
  expect(done.status).toBe(200);
}

const brandOf = (page: Page) =>
  page.evaluate(async () => ((await (await fetch("/api/admin/auth", { credentials: "same-origin" })).json()) as { session: { brandId: string } }).session.brandId);

/** An admin GET from inside the page (its session cookie). */
const adminGet = (page: Page, path: string): Promise<any> => page.evaluate(async (p) => (await fetch(p, { credentials: "same-origin" })).json(), path);

describe.skipIf(NO_CHROMIUM)("issue 36: the merchant's pages in Chromium", () => {
  it("item 8: a refund is confirmed first, naming amount and charge; a double click refunds once; the amount is cleared", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Rita Refunder");
      const orderId = `i36-refund-${Date.now()}`;
      await paidOrder(await brandOf(page), orderId);
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      const form = detail.getByRole("form", { name: "Refund" });
      await form.getByLabel("Amount (empty: all that is left)").fill("12.50");
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      // Nothing is refunded yet: the question names the amount and the charge.
      expect(await form.getByTestId("refund-question").textContent()).toBe(`Refund €12.50 of charge ${orderId} to the buyer? This cannot be undone.`);
      expect(await seriousViolations(page)).toEqual([]);
      const listed = await adminGet(page, `/api/admin/orders?q=${orderId}&livemode=false`);
      const ref = listed.orders[0].id as string;
      expect((await adminGet(page, `/api/admin/orders/${ref}`)).refunds).toEqual([]);
      // Cancel asks nothing of the provider.
      await form.getByRole("button", { name: "Cancel" }).click();
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      // Two quick clicks on the confirmation: one refund.
      await form.getByRole("button", { name: "Confirm refund" }).dblclick();
      await form.getByText("Refunded €12.50.").waitFor();
      await detail.getByRole("table", { name: "Refunds" }).waitFor();
      expect(await detail.getByRole("table", { name: "Refunds" }).getByRole("row").count()).toBe(2); // header + one refund
      expect(await form.getByLabel("Amount (empty: all that is left)").inputValue()).toBe("");
      expect(await form.getByRole("button", { name: "Confirm refund" }).count()).toBe(0);
      const full = await adminGet(page, `/api/admin/orders/${ref}`);
      expect(full.refunds.map((r: { amount: number }) => r.amount)).toEqual([1250]);
      await screenshot(page, "i36-refund");
    } finally {
      await page.close();
    }
  });

  it("item 9: webhook deliveries show request and response bodies, a failure in the error style, a Resend button, and refresh while open", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      receiverDown = true;
      await registerInBrowser(page, stack.base, "Walt Webhooks");
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("heading", { name: "Webhook endpoints" }).waitFor();
      const url = `${receiver.url}/hooks/flaky`;
      await page.getByLabel("URL").fill(url);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByRole("status").filter({ hasText: `Added ${url}.` }).waitFor();

      // Delivered: the request body (what every attempt sends) and the receiver's answer are shown.
      receiverDown = false;
      await page.getByRole("button", { name: `Send test to ${url}` }).click();
      await page.getByRole("status").filter({ hasText: `Test delivered to ${url} (HTTP 200).` }).waitFor();
      const deliveries = page.getByRole("region", { name: `Deliveries to ${url}` });
      await deliveries.getByRole("heading", { name: /webhook\.test — succeeded, 1 attempt/ }).waitFor();
      await deliveries.getByText("Request body").click();
      expect(JSON.parse((await deliveries.getByTestId("request-body").textContent())!)).toMatchObject({ type: "webhook.test" });
      const rows = deliveries.locator("tbody tr");
      await rows.first().getByText("Response body").click();
      expect(JSON.parse((await rows.first().getByTestId("response-body").textContent())!)).toEqual({ received: true });

      // Resent from the deliveries page while the receiver answers 500: a failure, in the error style.
      receiverDown = true;
      await deliveries.getByRole("button", { name: /^Resend webhook\.test delivery / }).click();
      const notDelivered = deliveries.getByRole("status").filter({ hasText: "Sent again; not delivered: HTTP 500." });
      await notDelivered.waitFor();
      expect(await notDelivered.getAttribute("class")).toBe("error");
      await rows.nth(1).waitFor();
      expect(await rows.nth(1).getAttribute("data-outcome")).toBe("failed");
      expect(await rows.nth(1).locator(".failed-text").evaluate((el) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { color: string } }).getComputedStyle(el).color)).toBe("rgb(185, 28, 28)");
      await rows.nth(1).getByText("Response body").click();
      expect(JSON.parse((await rows.nth(1).getByTestId("response-body").textContent())!)).toEqual({ error: "database down" });
      expect(await seriousViolations(page)).toEqual([]);

      // A test the receiver refuses is reported as an error, not in the success style (a 500 was green).
      await page.getByRole("button", { name: `Send test to ${url}` }).click();
      const refused = page.getByRole("status").filter({ hasText: `Test not delivered to ${url}: HTTP 500.` });
      await refused.waitFor();
      expect(await refused.getAttribute("class")).toBe("error");
      await deliveries.getByRole("article").nth(1).waitFor();

      // A delivery made elsewhere (another tab, the worker) appears while the list is open, without a click.
      const made = await page.evaluate(async () => {
        const list = (await (await fetch("/api/admin/webhooks", { credentials: "same-origin" })).json()) as { endpoints: { id: string }[] };
        return (await fetch(`/api/admin/webhooks/${list.endpoints[0]!.id}/test`, { method: "POST", credentials: "same-origin" })).status;
      });
      expect(made).toBe(200);
      await deliveries.getByRole("article").nth(2).waitFor({ timeout: 15_000 });
      expect(await deliveries.getByRole("article").count()).toBe(3);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "i36-webhook-deliveries");
    } finally {
      await page.close();
    }
  });

  it("item 10: an order has its own address (shareable, survives a reload) and its detail shows the billing and shipping addresses", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Otto Orders");
      const orderId = `i36-deep-${Date.now()}`;
      await paidOrder(
        await brandOf(page),
        orderId,
        { shippingAddress: { address1: "221B Baker Street", city: "London", state: "", postalCode: "NW1 6XE", country: "GB" } },
        { billingAddress: { line1: "1 Main St", line2: "Suite 4", city: "Springfield", state: "IL", postalCode: "62701", country: "US" } },
      );
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      await detail.getByRole("heading", { name: `Order ${orderId}` }).waitFor();
      expect(page.url()).toMatch(new RegExp(`/admin/orders/ord_[^/]+$`));
      const address = page.url();
      expect(await detail.getByTestId("billing-address").innerText()).toBe("1 Main St\nSuite 4\n62701 Springfield\nIL, US");
      expect(await detail.getByTestId("shipping-address").innerText()).toBe("221B Baker Street\nNW1 6XE London\nGB");
      expect(await seriousViolations(page)).toEqual([]);

      // A reload shows the same order; so does the address typed in later.
      await page.reload();
      await page.getByRole("region", { name: "Order detail" }).getByRole("heading", { name: `Order ${orderId}` }).waitFor();
      expect(await page.getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBe("page");
      await page.goto(`${stack.base}/admin`);
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await page.goto(address);
      await page.getByRole("region", { name: "Order detail" }).getByRole("heading", { name: `Order ${orderId}` }).waitFor();

      // Close goes back to the list's address; Back opens the order again.
      await page.getByRole("region", { name: "Order detail" }).getByRole("button", { name: "Close" }).click();
      await page.getByRole("region", { name: "Order detail" }).waitFor({ state: "detached" });
      expect(new URL(page.url()).pathname).toBe("/admin/orders");
      await page.goBack();
      await page.getByRole("region", { name: "Order detail" }).getByRole("heading", { name: `Order ${orderId}` }).waitFor();
      // An address that names no order of the brand says so.
      await page.goto(`${stack.base}/admin/orders/ord_nothing_here`);
      await page.getByRole("region", { name: "Order detail" }).getByRole("alert").waitFor();
      await screenshot(page, "i36-order-deep-link");
    } finally {
      await page.close();
    }
  });

  it("item 12: no back-office page, nor the portal, scrolls sideways on a 390 px phone", async () => {
    const page = await stack.browser.newPage({ locale: "en-US", viewport: { width: 390, height: 844 } });
    const portal = await stack.browser.newPage({ locale: "en-US", viewport: { width: 390, height: 844 } });
    /** The page's overflow: how much wider the document is than the screen, or the back office's content column than itself (0: none). */
    const overflow = async (p: Page) =>
      Number(await p.evaluate(`Math.max(...[document.documentElement, document.querySelector("main.content")].filter(Boolean).map((e) => e.scrollWidth - e.clientWidth))`));
    try {
      await registerInBrowser(page, stack.base, "Phil Phone");
      const brandId = await brandOf(page);
      // Something on the pages that scrolled: an order with a long id, a salesperson, a webhook endpoint with a long URL.
      const orderId = `i36-phone-${Date.now()}-with-a-rather-long-merchant-order-reference`;
      await paidOrder(brandId, orderId);
      const samEmail = `sam-phone-${Date.now()}@example.com`;
      const made = await page.evaluate(
        async ({ samEmail, url }) => {
          const post = (path: string, body: unknown) => fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.status);
          return [
            await post("/api/admin/salespeople", { name: "Sam Seller", email: samEmail, password: "sam's long password 42", commissionRate: 0.1 }),
            await post("/api/admin/webhooks", { url, name: "Order sync for the warehouse", events: ["*"], livemode: false }),
          ];
        },
        { samEmail, url: `${receiver.url}/hooks/a-rather-long-path/that-goes-on/for-the-warehouse-system?token=0123456789abcdef` },
      );
      expect(made.map((status) => (status === 201 ? 200 : status))).toEqual([200, 200]);

      await page.getByRole("button", { name: "Menu" }).click();
      const pages = await page.locator("#admin-menu a").evaluateAll((links) => links.map((a) => [(a as unknown as { href: string }).href, (a as unknown as { textContent: string }).textContent]));
      expect(pages.length).toBeGreaterThanOrEqual(15);
      const wide: string[] = [];
      const look = async (name: string) => {
        await page.waitForLoadState("networkidle");
        const extra = await overflow(page);
        // Names the widest element reaching past the screen, for whoever fixes it.
        const culprit = extra > 0 ? await page.evaluate(`(() => { const limit = document.documentElement.clientWidth; let w = null; for (const e of document.querySelectorAll("main *")) { const r = e.getBoundingClientRect(); if ((r.right > limit || e.scrollWidth > e.clientWidth + 1) && getComputedStyle(e).overflowX === "visible" && (!w || r.width <= w.r.width)) w = { e, r }; } return w ? w.e.tagName + "." + w.e.className + " " + Math.round(w.r.width) + "/" + w.e.scrollWidth : ""; })()`) : "";
        if (extra > 0) wide.push(`${name} (${extra} px: ${culprit})`);
      };
      for (const [href, title] of pages) {
        await page.goto(href!);
        await page.getByRole("heading", { level: 1 }).first().waitFor();
        await look(title!);
      }
      // The pages' open states: an order's detail, an endpoint's deliveries, the funnel form.
      await page.goto(`${stack.base}/admin/orders`);
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      await page.getByRole("region", { name: "Order detail" }).getByRole("heading", { name: `Order ${orderId}` }).waitFor();
      await look("order detail");
      await page.goto(`${stack.base}/admin/webhooks`);
      await page.getByRole("button", { name: /^Send test to / }).click();
      // The list refreshes every 4 s: the first delivery's body, whichever render it is in (a loaded CI machine took longer than the default wait).
      const deliveries = page.getByRole("region", { name: /^Deliveries to / });
      await deliveries.getByRole("article").first().waitFor({ timeout: 30_000 });
      await deliveries.getByRole("article").first().getByText("Request body").click({ timeout: 30_000 });
      await look("webhook deliveries");
      await page.goto(`${stack.base}/admin/funnels`);
      await page.getByRole("button", { name: "New funnel" }).click();
      await look("funnel form");

      await portal.goto(`${stack.base}/portal`);
      await portal.getByLabel("Email").fill(samEmail);
      await portal.getByLabel("Password").fill("sam's long password 42");
      await portal.getByRole("button", { name: "Sign in" }).click();
      await portal.getByRole("heading", { name: "Hello, Sam Seller" }).waitFor();
      await portal.waitForLoadState("networkidle");
      const portalExtra = await overflow(portal);
      if (portalExtra > 0) wide.push(`portal (${portalExtra} px)`);
      await screenshot(page, "i36-phone-last-page");
      expect(wide).toEqual([]);
    } finally {
      await portal.close();
      await page.close();
    }
  });

  it("item 14 (part): the dispute checkbox beside its label, the audit log says 'order …' once, 'not configured' notices not in the success style", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Dora Details");
      const orderId = `i36-small-${Date.now()}`;
      await paidOrder(await brandOf(page), orderId);
      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const detail = page.getByRole("region", { name: "Order detail" });
      await detail.getByRole("button", { name: "Simulate a dispute (test order)" }).click();
      const accept = detail.getByRole("form", { name: "Accept dispute" });
      const box = (await accept.getByRole("checkbox").boundingBox())!;
      const label = (await accept.locator("label").boundingBox())!;
      // Beside its words on one line, not a full-width box above them.
      expect(box.width).toBeLessThan(40);
      expect(label.height).toBeLessThan(40);
      expect(box.y).toBeGreaterThanOrEqual(label.y - 1);
      expect(box.y + box.height).toBeLessThanOrEqual(label.y + label.height + 1);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "Audit log" }).click();
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "dispute.simulate", exact: true }) });
      await row.waitFor();
      expect(await row.getByRole("cell").nth(2).textContent()).toBe(`order ${orderId}`);

      // The integrations this server has no connection for: an information, not a success.
      const info = "rgb(30, 58, 138)";
      await page.getByRole("link", { name: "Domains" }).click();
      const hosting = page.getByTestId("hosting-not-configured");
      await hosting.waitFor();
      expect(await hosting.evaluate((el) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { color: string } }).getComputedStyle(el).color)).toBe(info);
      await page.getByRole("link", { name: "Marketing lists" }).click();
      const lists = page.getByTestId("integration-not-configured");
      await lists.waitFor();
      expect(await lists.evaluate((el) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { color: string } }).getComputedStyle(el).color)).toBe(info);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "i36-small-ones");
    } finally {
      await page.close();
    }
  });

  it("item 14 (part): a payment link has a Copy button", async () => {
    const page = await stack.browser.newPage({ locale: "en-US", permissions: ["clipboard-read", "clipboard-write"] });
    try {
      await registerInBrowser(page, stack.base, "Lina Links");
      await page.getByRole("link", { name: "Payment links" }).click();
      const form = page.getByRole("form", { name: "New payment link" });
      await form.getByLabel("Product name").fill("Tea sampler");
      await form.getByLabel("Price per unit").fill("18.00");
      await form.getByRole("button", { name: "Create payment link" }).click();
      const link = (await page.getByTestId("payment-link").textContent())!;
      await form.getByRole("button", { name: "Copy the new link" }).click();
      await form.getByText("Copied.").waitFor();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(link);
      await page.evaluate("navigator.clipboard.writeText('')");
      await page.getByRole("button", { name: "Copy the link for Tea sampler" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(link);
      expect(await seriousViolations(page)).toEqual([]);

      // Its sales count: a buyer pays through the link (the checkout API, as its page does); the list then says 1.
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "Tea sampler", exact: true }) });
      expect(await row.getByTestId("link-sales").textContent()).toBe("0");
      const opened = await page.request.get(`${stack.base}${new URL(link).pathname}`, { maxRedirects: 0 });
      const token = opened.headers().location!.replace(/^.*\/checkout\//, "");
      const { orderId, amount, currency } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { orderId: string; amount: number; currency: string };
      expect((await api(stack.base, "/api/checkout/initialize", { token, provider: "vault_gateway_b" })).status).toBe(200);
      const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount, currency, ...CARD });
      expect(paid.status).toBe(200);
      const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: paid.body.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada", amount, currency });
      expect(done.status).toBe(200);
      await page.reload();
      await row.getByTestId("link-sales").filter({ hasText: /^1$/ }).waitFor();
      expect(await page.getByRole("columnheader", { name: "Sales", exact: true }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
  it("item 14 (part): the funnel form is shorter, its rarely used fields under \"More options\", none removed", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Fern Shorter");
      await page.getByRole("link", { name: "Upsell funnels" }).click();
      await page.getByRole("button", { name: "New funnel" }).click();
      const form = page.getByRole("form", { name: "New funnel" });
      await form.getByLabel("Name", { exact: true }).waitFor();
      // What every funnel needs is shown; the rest is folded away.
      for (const label of ["Name", "Status", "Products bought (ids or names, comma-separated)", "Step 1 variant 1 offer name", "Step 1 variant 1 offer price"])
        expect(await form.getByLabel(label, { exact: true }).isVisible()).toBe(true);
      const folded = ["Order total at least", "Order total at most", "Countries (codes, comma-separated)", "First order of this email", "Priority (lowest runs first)", "Step 1 variant 1 offer original price (optional)", "Step 1 variant 1 offer description (optional)", "Step 1 variant 1 offer image URL (optional)", "Step 1 variant 1 downsell name"];
      for (const label of folded) expect(await form.getByLabel(label, { exact: true }).isVisible()).toBe(false);
      const short = (await form.boundingBox())!.height;
      for (const summary of await form.locator("summary").all()) await summary.click();
      for (const label of folded) expect(await form.getByLabel(label, { exact: true }).isVisible()).toBe(true);
      expect((await form.boundingBox())!.height).toBeGreaterThan(short * 1.5);
      // A funnel saved with a folded field opens with it shown.
      await form.getByLabel("Name", { exact: true }).fill("Folded");
      await form.getByLabel("Countries (codes, comma-separated)", { exact: true }).fill("US");
      await form.getByLabel("Step 1 variant 1 offer name", { exact: true }).fill("Beans");
      await form.getByLabel("Step 1 variant 1 offer price", { exact: true }).fill("9.00");
      await form.getByRole("button", { name: "Save funnel" }).click();
      await page.getByText("Saved funnel Folded (version 1).").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "i36-funnel-form");
    } finally {
      await page.close();
    }
  });
});
