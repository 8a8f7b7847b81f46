// Takes the README's screenshots (docs/screenshots/*.png) against the real built service on a fresh
// embedded database, in headless Chromium: `npm run build && npx tsx scripts/screenshots.ts`.
import { mkdirSync } from "node:fs";
import { checkoutToken, PRODUCT_SVG, startMerchant, startStack } from "../test/e2e/support.js";

const OUT = "docs/screenshots";
mkdirSync(OUT, { recursive: true });
const stack = await startStack();
const merchant = await startMerchant((_req, res) => {
  res.setHeader("content-type", "image/svg+xml");
  res.end(PRODUCT_SVG);
});
try {
  const admin = await stack.browser.newContext({ viewport: { width: 1200, height: 800 } });
  const adminPage = await admin.newPage();
  const post = async (url: string, data: unknown) => {
    // As the pages send it (the session-cookie CSRF check wants a same-origin request).
    const res = await adminPage.request.post(stack.base + url, { data, headers: { "sec-fetch-site": "same-origin" } });
    if (!res.ok()) throw new Error(`${url}: ${res.status()} ${await res.text()}`);
    return res.json();
  };
  await post("/api/auth/register", { name: "Grace Hopper", email: "grace@example.com", password: "correct horse battery staple 42", orgName: "Hopper Coffee" });
  // The brand's look on the checkout and upsell pages (PUT /api/admin/branding; the logo from the merchant's host).
  const styled = await adminPage.request.put(`${stack.base}/api/admin/branding`, { data: { logoUrl: `${merchant.url}/logo.svg`, color: "#7c2d12" }, headers: { "sec-fetch-site": "same-origin" } });
  if (!styled.ok()) throw new Error(`branding: ${styled.status()} ${await styled.text()}`);
  const { salesperson } = await post("/api/admin/salespeople", { name: "Sam Seller", email: "sam@example.com", password: "another long password 77", commissionRate: 0.1 });

  const customer = await stack.browser.newContext({ viewport: { width: 1200, height: 900 }, locale: "en-US" });
  const page = await customer.newPage();
  for (const [i, total] of [4999, 12900, 2599].entries()) {
    const link = await post("/api/admin/tools/generate-link", { salespersonId: salesperson.id, orderInfo: { productName: `Kit ${i}`, total, currency: "USD" } });
    await page.goto(`${stack.base}/checkout/${link.token}`);
    await page.getByLabel("Email").fill("ada@example.com");
    for (const [label, value] of [["First name", "Ada"], ["Last name", "Lovelace"], ["Address", "12 Analytical St"], ["City", "Springfield"], ["State / region", "IL"], ["Postal code", "62701"], ["Card number", "4242 4242 4242 4242"], ["Expiry date (MM / YY)", "12 / 31"], ["Security code", "123"]])
      await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByLabel("Country", { exact: true }).selectOption("US");
    await page.getByRole("button", { name: /^Pay / }).click();
    await page.waitForURL(/\/success/);
  }

  // The checkout page as a customer first sees it: a token with a product picture and a pre-filled form.
  const orderId = `shot-${Date.now()}`;
  const token = await checkoutToken({
    orderId,
    amount: 4999,
    currency: "USD",
    productName: "Espresso starter kit",
    productDescription: "Grinder, tamper and two bags of single-origin beans.",
    productImage: `${merchant.url}/kit.svg`,
    customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
    shippingAddress: { address1: "12 Analytical St", city: "Springfield", state: "IL", postalCode: "62701", country: "US" },
  });
  await page.goto(`${stack.base}/checkout/${token}`);
  await page.getByRole("button", { name: "Pay $49.99" }).waitFor();
  await page.screenshot({ path: `${OUT}/checkout.png`, fullPage: true });
  for (const [label, value] of [["Card number", "4242 4242 4242 4242"], ["Expiry date (MM / YY)", "12 / 31"], ["Security code", "123"]]) await page.getByLabel(label).fill(value);
  await page.getByRole("button", { name: "Pay $49.99" }).click();
  await page.waitForURL(/\/success/);
  const transactionId = new URL(page.url()).searchParams.get("transactionId");
  const saved = await post("/api/checkout/get-payment-token", { provider: "vault_gateway_b", transactionId });
  const session = await post("/api/upsell/create-session", {
    orderId: `${orderId}-up`,
    originalOrderId: orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken: saved.paymentMethodToken,
    provider: "vault_gateway_b",
    offers: [{ id: "care", name: "Two-year care plan", description: "Repairs and replacement for two years, no questions asked.", price: 1500, originalPrice: 2500, image: `${merchant.url}/kit.svg` }],
  });
  await page.goto(`${stack.base}/upsell/${session.sessionId}`);
  await page.getByTestId("offer-name").waitFor();
  await page.screenshot({ path: `${OUT}/upsell.png`, fullPage: true });
  await page.getByRole("button", { name: /^Yes, add it/ }).click();
  await page.waitForURL(/\/success/);

  await adminPage.goto(`${stack.base}/admin`);
  // The orders here were paid in demo mode: the dashboard counts real money unless switched.
  await adminPage.getByLabel("Money").selectOption("true");
  await adminPage.getByTestId("stat-commissions").filter({ hasText: "3" }).waitFor();
  await adminPage.getByTestId("stat-orders").filter({ hasText: /^5$/ }).waitFor();
  await adminPage.getByRole("cell", { name: "care" }).waitFor();
  await adminPage.screenshot({ path: `${OUT}/admin-dashboard.png`, fullPage: true });
  console.log(`screenshots written to ${OUT}/`);
} finally {
  await merchant.close();
  await stack.close();
}
