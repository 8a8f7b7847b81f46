import { expect } from "vitest";
import type { PaymentProviderType } from "../../src/providers/types.js";
import type { TestApp } from "./app.js";
import { json } from "./app.js";
import { orderClaims, post, signToken } from "./checkout.js";
import { address, AMOUNT, PAY_BY_PROVIDER } from "./provider-payments.js";

/** Completion members a CRM recording needs besides the email: the buyer's name parts and billing address. */
export const CRM_BUYER = { customer: { firstName: "Ada", lastName: "Lovelace" }, billingAddress: address };

/** The body of `POST /api/checkout/complete` for a paid order, as the checkout page sends it; `extra` adds or overrides members. */
export function completionBody(
  paid: { orderId: string; transactionId: string; provider: PaymentProviderType; amount?: number; providerOrderId?: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    orderId: paid.orderId,
    transactionId: paid.transactionId,
    provider: paid.provider,
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: paid.amount ?? AMOUNT,
    currency: "USD",
    ...(paid.providerOrderId ? { providerOrderId: paid.providerOrderId } : {}),
    ...extra,
  };
}

export interface CheckoutOptions {
  provider?: PaymentProviderType;
  /** Default a succeeding card. */
  cardNumber?: string;
  /** Token claims over a valid order of AMOUNT USD. */
  claims?: Record<string, unknown>;
  /** Members added to the initialize body (the buyer's details). */
  initialize?: Record<string, unknown>;
  /** Members added to the completion body (another customer, line items, CRM recording). */
  complete?: Record<string, unknown>;
}

/**
 * A checkout initialized and paid at the provider's demo endpoint, not completed yet: what the
 * customer's page holds before `complete`, with the completion body it would send.
 */
export async function paidCheckoutViaApi(t: TestApp, options: CheckoutOptions = {}) {
  const provider = options.provider ?? "vault_gateway_b";
  const order = orderClaims({ amount: AMOUNT, currency: "USD", ...options.claims });
  const orderId = order.orderId as string;
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider, ...options.initialize });
  expect(init.statusCode, init.body).toBe(200);
  const paid = await PAY_BY_PROVIDER[provider](t, orderId, options.cardNumber);
  return { orderId, provider, transactionId: paid.transactionId, completion: completionBody({ orderId, provider, ...paid }, options.complete) };
}

/**
 * A checkout completed through the public API, as a merchant's customer does it: initialize, pay at
 * the provider's demo endpoint (with `cardNumber`, default a succeeding card), complete.
 */
export async function completeCheckoutViaApi(t: TestApp, options: CheckoutOptions = {}) {
  const { orderId, provider, transactionId, completion } = await paidCheckoutViaApi(t, options);
  const done = await post(t, "/api/checkout/complete", completion);
  expect(done.statusCode, done.body).toBe(200);
  return { orderId, provider, transactionId, paymentMethodToken: json(done).paymentMethodToken as string, upsellUrl: json(done).upsellUrl as string | undefined };
}

/** An upsell offer as create-session takes it (downsell, image and the rest as the test needs). */
export type Offer = { id: string; name: string; price: number } & Record<string, unknown>;

/**
 * An upsell session of `offers` on a completed checkout, created as the merchant's server does
 * (upsell order `<orderId>-up`, the checkout's payment method and provider); fails unless 200.
 */
export async function createUpsellSession(
  t: TestApp,
  done: { orderId: string; paymentMethodToken: string; provider: string },
  offers: Offer[],
  options: { customerEmail?: string; headers?: Record<string, string> } = {},
): Promise<{ sessionId: string; upsellOrderId: string }> {
  const upsellOrderId = `${done.orderId}-up`;
  const res = await post(
    t,
    "/api/upsell/create-session",
    { orderId: upsellOrderId, originalOrderId: done.orderId, customerEmail: options.customerEmail ?? "ada@example.com", paymentMethodToken: done.paymentMethodToken, provider: done.provider, offers },
    options.headers,
  );
  expect(res.statusCode, res.body).toBe(200);
  return { sessionId: json(res).sessionId as string, upsellOrderId };
}

export const CARE_PLAN: Offer = { id: "care", name: "Care plan", price: 1500 };

/** An upsell session of one offer (the care plan unless said) on a completed checkout, and the customer's accept of it; fails unless both answer 200. */
export async function acceptedUpsell(t: TestApp, done: { orderId: string; paymentMethodToken: string; provider: string }, offer: Offer = CARE_PLAN, options: { customerEmail?: string } = {}) {
  const session = await createUpsellSession(t, done, [offer], options);
  const accepted = await post(t, "/api/upsell/accept", { sessionId: session.sessionId, offerId: offer.id });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return session;
}
