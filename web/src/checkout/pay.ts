import type { CartPaymentReply, CompleteResponse, ConfirmIntentReply, CreateCartReply, CrmAPaymentReply, InitializeResponse, VaultPaymentReply } from "../shared/api-types";
import { api, ApiError } from "../shared/api";
import type { CheckoutClaims } from "../shared/jwt";
import { PAYMENT_PROVIDERS, PROVIDER_MANIFEST } from "../shared/providers";
import { safeNavigationTarget } from "../shared/navigation";

export interface CustomerForm {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  line1: string;
  line2: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface CardForm {
  cardNumber: string;
  cardExpMonth: string;
  cardExpYear: string;
  cardCvv: string;
}

export type Initialized = InitializeResponse;

/** Providers whose card form this page drives (docs/web.md), from the server's provider manifest; hosted_store redirects instead. */
export const CARD_PROVIDERS = PAYMENT_PROVIDERS.filter((p) => PROVIDER_MANIFEST[p].cardForm);

const customerOf = (f: CustomerForm) => ({ email: f.email, firstName: f.firstName, lastName: f.lastName, ...(f.phone ? { phone: f.phone } : {}) });
export const addressOf = (f: CustomerForm) => ({
  line1: f.line1,
  ...(f.line2 ? { line2: f.line2 } : {}),
  city: f.city,
  state: f.state,
  postalCode: f.postalCode,
  country: f.country,
});

/**
 * Charges the card with the checkout's provider (docs/providers.md, one flow per provider) and
 * returns the transaction id that completion verifies. A decline throws the API's 402 error.
 */
export async function payWithCard(provider: string, claims: CheckoutClaims, init: Initialized, form: CustomerForm, card: CardForm): Promise<string> {
  const base = { orderId: claims.orderId, ...card };
  // One key per pay attempt (CONTRACT §17): a double submit or a retried request charges once.
  const attempt = crypto.randomUUID();
  const post = <T>(path: string, body: unknown) => api<T>(path, { body, idempotencyKey: `${attempt}:${path}` });
  switch (provider) {
    case "vault_gateway_a":
    case "vault_gateway_b": {
      const extra = provider === "vault_gateway_b" ? { shippingAddress: addressOf(form) } : {};
      const paid = await post<VaultPaymentReply>(`/api/providers/${provider}/process-payment`, {
        ...base,
        amount: claims.amount,
        currency: claims.currency,
        customer: customerOf(form),
        billingAddress: addressOf(form),
        ...extra,
      });
      return paid.transactionId;
    }
    case "intent_gateway": {
      const confirmed = await post<ConfirmIntentReply>("/api/providers/intent_gateway/confirm", { paymentIntentId: init.providerOrderId, ...card });
      if (confirmed.status !== "succeeded") throw new ApiError(402, "Your bank asks for an extra authentication step this page cannot show. Please use another card.", "PAYMENT_FAILED", "requires_action");
      return confirmed.paymentIntentId;
    }
    case "order_crm_a": {
      const paid = await post<CrmAPaymentReply>("/api/providers/order_crm_a/process-payment", { ...base, crmAOrderId: init.providerOrderId });
      return paid.transactionId;
    }
    case "cart_gateway": {
      const cart = await post<CreateCartReply>("/api/providers/cart_gateway/create-cart", {
        orderId: claims.orderId,
        customer: customerOf(form),
        shippingAddress: addressOf(form),
        lineItems: [{ itemId: claims.orderId, quantity: 1, price: claims.amount }],
        currency: claims.currency,
      });
      const paid = await post<CartPaymentReply>("/api/providers/cart_gateway/process-payment", { ...base, cartOrderId: cart.cartOrderId });
      return paid.transactionId;
    }
    default:
      throw new ApiError(400, `This page cannot take card payments for ${provider}.`);
  }
}

export type Completed = CompleteResponse;

export async function completeCheckout(provider: string, claims: CheckoutClaims, init: Initialized, form: CustomerForm, transactionId: string): Promise<Completed> {
  return api<Completed>("/api/checkout/complete", {
    body: {
      orderId: claims.orderId,
      transactionId,
      provider,
      providerOrderId: init.providerOrderId,
      customerEmail: form.email,
      customerName: `${form.firstName} ${form.lastName}`.trim(),
      amount: claims.amount,
      currency: claims.currency,
      customer: { firstName: form.firstName, lastName: form.lastName, ...(form.phone ? { phone: form.phone } : {}) },
      shippingAddress: addressOf(form),
      billingAddress: addressOf(form),
    },
  });
}

/**
 * Where the customer goes after paying: the token's successUrl (or /success) with the order id,
 * transaction id and provider appended, so the merchant's page can fetch the payment method token
 * and start an upsell session (docs/web.md).
 */
export function successLocation(claims: CheckoutClaims, done: Completed): string {
  // Issue 19: a funnel took the order; its upsell page (on this origin, whatever the URL's host) comes first.
  if (done.upsellUrl) return new URL(new URL(done.upsellUrl, location.origin).pathname, location.origin).toString();
  // CONTRACT §36: never anything but /success or an absolute http(s) URL (javascript: would run here).
  const target = new URL(safeNavigationTarget(claims.successUrl), location.origin);
  target.searchParams.set("orderId", done.orderId);
  target.searchParams.set("transactionId", done.transactionId);
  target.searchParams.set("provider", done.provider);
  return target.toString();
}
