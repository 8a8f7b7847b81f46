import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { Secret, TOTP } from "otpauth";
import { chromium, type Browser, type Page } from "playwright-core";
import { signCheckoutToken } from "../../src/checkout/token.js";
import { migratedDataDir, startServer, type StartedServer } from "../support/process.js";
import { expect } from "vitest";

/** The Chromium binary (vitest.config.ts looks for Debian's); empty when there is none. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "";
export const NO_CHROMIUM = CHROMIUM === "";
if (NO_CHROMIUM) console.log("Browser tests SKIPPED: no Chromium binary (apt-get install -y chromium)");

export const TOKEN_SECRET = "e2e-checkout-token-secret-0123456789abcdef";

export interface Stack {
  server: StartedServer;
  browser: Browser;
  base: string;
  close(): Promise<void>;
}

/**
 * The built service (dist/main.js, what `npm start` runs) on a fresh embedded database, and a
 * headless Chromium. Rate limits are raised: one browser test makes more calls per minute than a
 * customer does.
 */
export async function startStack(env: Record<string, string> = {}, options: { prepare?: (dataDir: string) => Promise<void> } = {}): Promise<Stack> {
  // A migrated embedded database: a first start on an empty one (initdb and every migration) took
  // half a minute on a busy machine, and 95 s on a 2-core machine at load 40 (many test legs at once).
  const dataDir = await migratedDataDir("e2e-");
  // Rows a test needs before the service starts (the service holds the embedded database alone once it runs).
  await options.prepare?.(dataDir);
  const server = await startServer({ DATA_DIR: dataDir, CHECKOUT_TOKEN_SECRET: TOKEN_SECRET, RATE_LIMIT_ANONYMOUS: "10000", RATE_LIMIT_AUTHENTICATED: "10000", ...env }, 150_000);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    server,
    browser,
    base: server.baseUrl,
    close: async () => {
      await browser.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Each test leaves a picture of its last page under test-results/ (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync("test-results/e2e", { recursive: true });
  await page.screenshot({ path: `test-results/e2e/${name}.png`, fullPage: true });
}

/** The authenticator app's code at `timestamp`: RFC 6238 as CONTRACT §10 fixes it (SHA-1, 6 digits, 30 s), computed apart from the service's own code. */
export const totpCodeAt = (secret: string, timestamp: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp });

/** A checkout token as a merchant's server signs it (HS256 with CHECKOUT_TOKEN_SECRET). */
export async function checkoutToken(claims: Record<string, unknown>, options: { now?: number; lifetimeSeconds?: number } = {}): Promise<string> {
  const ctx = { config: { checkoutTokenSecret: TOKEN_SECRET }, clock: { now: () => options.now ?? Date.now() } } as Parameters<typeof signCheckoutToken>[0];
  return (await signCheckoutToken(ctx, claims as never, options.lifetimeSeconds ?? 3600)).token;
}

export async function api(base: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + url, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** A small real HTTP server on 127.0.0.1 standing in for the merchant's site. */
export async function startMerchant(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    Promise.resolve(handler(req, res, url)).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A product picture the merchant serves (no external network). */
export const PRODUCT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#c7d2fe"/><circle cx="200" cy="150" r="80" fill="#4338ca"/></svg>`;

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  // Evaluated through the browser's protocol, not as an inline <script>: the pages' CSP
  // (script-src 'self', src/http/security-headers.ts) would refuse a script tag, as it should.
  await page.evaluate(source);
  return page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
    const g = globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<Result> }; document: unknown };
    const result = await g.axe.run(g.document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
}

/** Registers a new owner on the login page and waits for the dashboard. */
export async function registerInBrowser(page: Page, base: string, name: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByRole("button", { name: "Register" }).click();
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Email").fill(`${name.split(" ")[0]!.toLowerCase()}-${Date.now()}@example.com`);
  await page.getByLabel(/^Password/).fill("a long enough password 123");
  await page.getByLabel("Organization name").fill(`${name} Goods`);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
}

/**
 * A checkout paid with `cardNumber` at vault_gateway_b and completed through the API, as a merchant
 * does it, then an upsell session with `offers` on it. `claims` carry orderId, amount and currency.
 */
export async function paidUpsellSession(
  base: string,
  {
    claims,
    cardNumber = "4242424242424242",
    offers,
    provider = "vault_gateway_b",
  }: { claims: { orderId: string; amount: number; currency: string } & Record<string, unknown>; cardNumber?: string; offers: unknown[]; provider?: "vault_gateway_b" | "order_crm_b" },
): Promise<string> {
  const { orderId, amount, currency } = claims;
  const initialized = await api(base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider });
  if (initialized.status !== 200) throw new Error(`initialize answered ${initialized.status}`);
  const card = { cardNumber, cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" };
  // order_crm_b (demo): the CRM makes and charges its order in one call; completion names that order.
  const paid =
    provider === "order_crm_b"
      ? await api(base, "/api/providers/order_crm_b/process-payment", { orderId, campaignId: "camp-1", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, billingAddress: { line1: "1 Main St", city: "London", state: "LDN", postalCode: "N1 1AA", country: "GB" }, lineItems: [{ productId: "p1", quantity: 1, price: amount }], ...card })
      : await api(base, `/api/providers/${provider}/process-payment`, { orderId, amount, currency, ...card });
  if (paid.status !== 200) throw new Error(`process-payment answered ${paid.status}`);
  const providerOrderId = paid.body.crmBOrderId as string | undefined;
  const done = await api(base, "/api/checkout/complete", { orderId, transactionId: paid.body.transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada Lovelace", amount, currency, ...(providerOrderId ? { providerOrderId } : {}) });
  if (done.status !== 200) throw new Error(`complete answered ${done.status}`);
  const created = await api(base, "/api/upsell/create-session", {
    orderId: `${orderId}-up`,
    originalOrderId: orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken: done.body.paymentMethodToken,
    provider,
    offers,
  });
  if (created.status !== 200) throw new Error(`create-session answered ${created.status}`);
  return created.body.sessionId;
}

/** A customer opens `path` (a link of this server) in a new page and pays `price` with the demo card. */
export async function payOnCheckoutPage(stack: Stack, path: string, price: string): Promise<void> {
  const customer = await stack.browser.newPage({ locale: "en-US" });
  try {
    await customer.goto(`${stack.base}${path}`);
    expect(await customer.getByTestId("price").textContent()).toBe(price);
    for (const [label, value] of [["Email", "ada@example.com"], ["First name", "Ada"], ["Last name", "Lovelace"], ["Address", "1 Main St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"], ["Card number", "4242424242424242"], ["Expiry date (MM / YY)", "12 / 31"], ["Security code", "123"]])
      await customer.getByLabel(label, { exact: true }).fill(value);
    await customer.getByLabel("Country", { exact: true }).selectOption("US");
    await customer.getByRole("button", { name: `Pay ${price}` }).click();
    await customer.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
  } finally {
    await customer.close();
  }
}
