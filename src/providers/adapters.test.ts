// The PaymentProvider contract of every demo adapter, as checkout completion and upsells use it:
// initialize, findPayment (CONTRACT §19) and chargeSaved (§25's 4000000000000341), and the CRMs' recordOrder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { address, AMOUNT, customer, PAY_BY_PROVIDER } from "../../test/support/provider-payments.js";
import { CRM_PROVIDERS, PAYMENT_PROVIDERS, type PaymentProviderType } from "./types.js";

let t: TestApp;
beforeAll(async () => {
  // Declines are arranged on purpose here; the card-testing limit has its own tests.
  t = await buildTestApp({ env: { DECLINE_LIMIT: "1000" } });
});
afterAll(() => t.close());

const adapterOf = (provider: PaymentProviderType) => t.deps.providers.payment(provider, "brand_default", false);

const ID = "[A-Za-z0-9_-]{22}";
/** SPEC "Payment method token formats", with each provider's id prefixes. */
const TOKEN_FORMAT: Record<PaymentProviderType, (paid: { transactionId: string; providerOrderId?: string; paymentMethodId?: string }) => RegExp> = {
  intent_gateway: (p) => new RegExp(`^${p.paymentMethodId}\\|cus_demo_${ID}$`),
  vault_gateway_a: (p) => new RegExp(`^vga_cv_${ID}\\|${p.transactionId}$`),
  vault_gateway_b: (p) => new RegExp(`^vgb_cv_${ID}\\|${p.transactionId}$`),
  order_crm_a: (p) => new RegExp(`^${p.providerOrderId}$`),
  order_crm_b: (p) => new RegExp(`^${p.providerOrderId}$`),
  hosted_store: (p) => new RegExp(`^${p.providerOrderId}$`),
  cart_gateway: (p) => new RegExp(`^${p.providerOrderId}$`),
};
const PROVIDER_ORDER_PREFIX: Record<PaymentProviderType, string> = {
  intent_gateway: "pi_demo",
  vault_gateway_a: "vga_ord",
  vault_gateway_b: "vgb_ord",
  order_crm_a: "crma_ord",
  order_crm_b: "crmb_ord",
  hosted_store: "hs_ord",
  cart_gateway: "cart_ord",
};

const initializeInput = (orderId: string) => ({
  checkoutId: `chk_${orderId}`,
  orderId,
  amountCents: AMOUNT,
  currency: "USD",
  productName: "Thing",
  customer: { email: customer.email, firstName: "Ada", lastName: "Lovelace" },
  shippingAddress: address,
  billingAddress: address,
  lineItems: [{ id: "p1", quantity: 1, unitPrice: AMOUNT }],
});

describe.each(PAYMENT_PROVIDERS)("%s adapter", (provider) => {
  it("initialize returns a providerOrderId (plus clientSecret or checkoutUrl) and reuses it for the same order", async () => {
    const { adapter, call } = await adapterOf(provider);
    const first = await adapter.initialize(initializeInput(`init-${provider}`), call);
    expect(first.providerOrderId).toMatch(new RegExp(`^${PROVIDER_ORDER_PREFIX[provider]}_${ID}$`));
    if (provider === "intent_gateway") expect(first.clientSecret).toMatch(new RegExp(`^${first.providerOrderId}_secret_`));
    else expect(first.clientSecret).toBeUndefined();
    if (provider === "hosted_store") expect(first.checkoutUrl).toBe(`http://checkout.test/demo/hosted-store/${first.providerOrderId}`);
    else expect(first.checkoutUrl).toBeUndefined();

    const again = await adapter.initialize(initializeInput(`init-${provider}`), call);
    expect(again.providerOrderId).toBe(first.providerOrderId);
    const otherAmount = await adapter.initialize({ ...initializeInput(`init-${provider}`), amountCents: AMOUNT + 1 }, call);
    expect(otherAmount.providerOrderId).not.toBe(first.providerOrderId);
  });

  it("findPayment reports a succeeded payment with its order, amount, currency and token; unknown ids are null", async () => {
    const { adapter, call } = await adapterOf(provider);
    const paid = await PAY_BY_PROVIDER[provider](t, `find-${provider}`);
    const record = await adapter.findPayment({ transactionId: paid.transactionId, providerOrderId: paid.providerOrderId }, call);
    expect(record).toMatchObject({ transactionId: paid.transactionId, orderId: `find-${provider}`, status: "succeeded", amountCents: AMOUNT, currency: "USD" });
    expect(record!.paymentMethodToken).toMatch(TOKEN_FORMAT[provider](paid));
    if (paid.paymentMethodToken) expect(record!.paymentMethodToken).toBe(paid.paymentMethodToken);

    expect(await adapter.findPayment({ transactionId: "txn_unknown" }, call)).toBeNull();
    // Another provider's transaction is unknown here, as it would be at the real provider.
    const other: PaymentProviderType = provider === "vault_gateway_a" ? "vault_gateway_b" : "vault_gateway_a";
    const foreign = await PAY_BY_PROVIDER[other](t, `find-foreign-${provider}`);
    expect(await adapter.findPayment({ transactionId: foreign.transactionId }, call)).toBeNull();
  });

  if (provider !== "hosted_store") {
    it("findPayment reports a declined payment as failed, with no token", async () => {
      const { adapter, call } = await adapterOf(provider);
      const orderId = `declined-${provider}`;
      await PAY_BY_PROVIDER[provider](t, orderId, "4000000000000002").catch(() => undefined);
      const rows = await t.deps.database.db.query.demoProviderRecords.findMany({ where: (r, { and, eq, inArray }) => and(eq(r.orderId, orderId), inArray(r.kind, ["charge", "payment_intent"])) });
      expect(rows).toHaveLength(1);
      expect(await adapter.findPayment({ transactionId: rows[0]!.id }, call)).toMatchObject({ status: "failed", paymentMethodToken: "" });
    });
  }

  it("chargeSaved charges the saved method as a new transaction; an unknown token is declined card_declined", async () => {
    const { adapter, call } = await adapterOf(provider);
    const paid = await PAY_BY_PROVIDER[provider](t, `saved-${provider}`);
    const token = (await adapter.findPayment({ transactionId: paid.transactionId }, call))!.paymentMethodToken;

    const outcome = await adapter.chargeSaved({ paymentMethodToken: token, amountCents: 700, currency: "USD", orderId: `saved-${provider}-up`, originalOrderId: `saved-${provider}` }, call);
    expect(outcome).toMatchObject({ status: "succeeded", paymentMethodToken: token });
    if (outcome.status !== "succeeded") throw new Error("unreachable");
    expect(outcome.transactionId).not.toBe(paid.transactionId);
    expect(await adapter.findPayment({ transactionId: outcome.transactionId }, call)).toMatchObject({ orderId: `saved-${provider}-up`, status: "succeeded", amountCents: 700, currency: "USD" });

    expect(await adapter.chargeSaved({ paymentMethodToken: "unknown|token", amountCents: 700, currency: "USD", orderId: "x", originalOrderId: "y" }, call)).toEqual({ status: "declined", reason: "card_declined" });
  });

  if (provider !== "hosted_store") {
    it("chargeSaved declines every later charge of a method saved from 4000000000000341", async () => {
      const { adapter, call } = await adapterOf(provider);
      const paid = await PAY_BY_PROVIDER[provider](t, `risky-${provider}`, "4000000000000341");
      const record = await adapter.findPayment({ transactionId: paid.transactionId }, call);
      expect(record!.status).toBe("succeeded");
      for (const n of [1, 2]) {
        const outcome = await adapter.chargeSaved({ paymentMethodToken: record!.paymentMethodToken, amountCents: 700, currency: "USD", orderId: `risky-${provider}-up${n}`, originalOrderId: `risky-${provider}` }, call);
        expect(outcome).toEqual({ status: "declined", reason: "card_declined", providerCode: "card_declined" });
      }
    });
  }
});

describe.each(CRM_PROVIDERS)("%s CRM", (provider) => {
  const input = (orderId: string) => ({
    orderId,
    amountCents: AMOUNT,
    currency: "USD",
    customer: { email: customer.email, firstName: "Ada", lastName: "Lovelace" },
    billingAddress: address,
    shippingAddress: null,
    lineItems: [{ id: "p1", quantity: 1, unitPrice: AMOUNT }],
    transactionId: "vga_txn_x",
  });
  const prefix = { order_crm_a: "crma_ord", order_crm_b: "crmb_ord", cart_gateway: "cart_ord" }[provider];

  it("recordOrder returns a prefixed CRM order id, once per order", async () => {
    const { adapter, call } = await t.deps.providers.crm(provider, "brand_default", false);
    const first = await adapter.recordOrder(input(`crm-${provider}`), call);
    expect(first.crmOrderId).toMatch(new RegExp(`^${prefix}_${ID}$`));
    expect(await adapter.recordOrder(input(`crm-${provider}`), call)).toEqual(first);
    expect((await adapter.recordOrder(input(`crm-${provider}-2`), call)).crmOrderId).not.toBe(first.crmOrderId);
  });

  if (provider !== "order_crm_b") {
    it("recordOrder reuses the CRM's own paid order when the customer paid through it", async () => {
      const paid = await PAY_BY_PROVIDER[provider](t, `crm-paid-${provider}`);
      const { adapter, call } = await t.deps.providers.crm(provider, "brand_default", false);
      expect(await adapter.recordOrder(input(`crm-paid-${provider}`), call)).toEqual({ crmOrderId: paid.providerOrderId });
    });
  }
});
