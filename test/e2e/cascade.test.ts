// Browser (issue 34): a brand with two card gateways (the real vault gateway adapters against two fake
// gateways on 127.0.0.1); the first declines the buyer's card, the second takes it within the same
// pay request: the buyer sees the spinner a little longer and lands on the success page, nothing else.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeVaultGateway, type FakeVaultGateway } from "../../src/providers/vault-gateway-a/fake-server.js";
import { SESSION_COOKIE } from "../../src/identity/policy.js";
import { checkoutToken, NO_CHROMIUM, screenshot, startStack, type Stack } from "./support.js";

let stack: Stack;
let first: FakeVaultGateway;
let second: FakeVaultGateway;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The owner's admin call (the first registration owns the default brand, CONTRACT §27). */
async function adminPost(path: string, body: unknown, session?: string) {
  const res = await fetch(stack.base + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.base, ...(session ? { cookie: `${SESSION_COOKIE}=${session}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), cookie: res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) };
}

beforeAll(async () => {
  if (NO_CHROMIUM) return;
  const port = await freePort();
  [stack, first, second] = await Promise.all([
    startStack({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ALLOW_PRIVATE_WEBHOOK_URLS: "true" }),
    startFakeVaultGateway("fake-key-first-0001"),
    startFakeVaultGateway("fake-key-second-001"),
  ]);
  first.declineCards.add("4242424242424242");
  const registered = await adminPost("/api/auth/register", { name: "Ada Merchant", email: "ada-cascade@example.com", password: "correct horse battery", orgName: "Ada Shop" });
  expect(registered.status, registered.text).toBe(200);
  const session = registered.cookie!.split(";")[0]!.slice(SESSION_COOKIE.length + 1);
  for (const [provider, fake] of [["vault_gateway_a", first], ["vault_gateway_b", second]] as const) {
    const saved = await adminPost("/api/admin/settings", { provider, settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } }, session);
    expect(saved.status, saved.text).toBe(200);
  }
});
afterAll(async () => {
  await stack?.close();
  await first?.close();
  await second?.close();
});

describe.skipIf(NO_CHROMIUM)("a cascade on the checkout page", () => {
  it("the first gateway declines the card, the second takes it: the buyer only waits a little longer", async () => {
    const orderId = `e2e-cascade-${Date.now()}`;
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      // No provider in the token: the page starts with the brand's first card gateway.
      await page.goto(`${stack.base}/checkout/${await checkoutToken({ orderId, amount: 3900, currency: "USD", productName: "Kettle", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } })}`);
      for (const [label, value] of [["Address", "1 Main St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"], ["Card number", "4242424242424242"], ["Expiry date (MM / YY)", "12 / 31"], ["Security code", "123"]])
        await page.getByLabel(label, { exact: true }).fill(value);
      await page.getByLabel("Country", { exact: true }).selectOption("US");
      const paid = page.waitForResponse((response) => response.url().endsWith("/api/checkout/pay"));
      await page.getByRole("button", { name: "Pay $39.00" }).click();
      expect(await (await paid).json()).toMatchObject({
        status: "succeeded",
        provider: "vault_gateway_b",
        attempts: [
          { provider: "vault_gateway_a", result: "declined" },
          { provider: "vault_gateway_b", result: "approved" },
        ],
      });
      await page.getByRole("heading", { name: "Thank you, your order is confirmed" }).waitFor();
      expect(new URL(page.url()).searchParams.get("provider")).toBe("vault_gateway_b");
      // No error was ever shown.
      expect(await page.getByTestId("checkout-error").count()).toBe(0);
      await screenshot(page, "checkout-cascade");
      expect([...first.transactions.values()].filter((s) => s.orderId === orderId).map((s) => s.success)).toEqual([false]);
      expect([...second.transactions.values()].filter((s) => s.orderId === orderId).map((s) => s.success)).toEqual([true]);
    } finally {
      await page.close();
    }
  });
});
