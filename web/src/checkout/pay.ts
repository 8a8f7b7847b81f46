import type {
  CartPaymentReply,
  CompleteHostedCheckoutReply,
  CompleteResponse,
  ConfirmIntentReply,
  CreateCartReply,
  CrmAPaymentReply,
  CrmBPaymentReply,
  InitializeResponse,
  VaultPaymentReply,
} from "../shared/api-types";
import { api, ApiError } from "../shared/api";
import type { CheckoutClaims } from "../shared/jwt";
import { safeNavigationTarget } from "../shared/navigation";
import { PAYMENT_PROVIDERS, PROVIDER_MANIFEST } from "../shared/providers";
import { digitsOf, parseExpiry } from "./card";

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
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** The card fields as shown: number grouped, expiry `MM / YY`. */
export interface CardForm {
  cardNumber: string;
  cardExp: string;
  cardCvv: string;
  cardName: string;
}

export type Initialized = InitializeResponse;

/** Providers whose card form this page shows (the provider manifest); hosted_store takes the card on the store's own page. */
export const CARD_PROVIDERS: readonly string[] = PAYMENT_PROVIDERS.filter((p) => PROVIDER_MANIFEST[p].cardForm);

/** A payment either made (its transaction id) or waiting for the buyer on the bank's 3-D Secure page. */
export type PayOutcome = { transactionId: string } | { redirect: string };

const customerOf = (f: CustomerForm) => ({ email: f.email, firstName: f.firstName, lastName: f.lastName, ...(f.phone ? { phone: f.phone } : {}) });
/** The form's address; none when the page asked for none (a checkout that ships nothing, issue 36). */
export const addressOf = (f: CustomerForm) =>
  f.line1
    ? {
        line1: f.line1,
        ...(f.line2 ? { line2: f.line2 } : {}),
        city: f.city,
        state: f.state,
        postalCode: f.postalCode,
        country: f.country,
      }
    : undefined;

/** The API's card fields from the shown ones (the cardholder's name is not sent: no endpoint takes it). */
function cardFieldsOf(card: CardForm) {
  const expiry = parseExpiry(card.cardExp);
  return { cardNumber: digitsOf(card.cardNumber), cardExpMonth: expiry?.month ?? "", cardExpYear: expiry?.year ?? "", cardCvv: card.cardCvv };
}

/** The token's line items when they add up to the amount, else one line for the whole order. */
function productLines(claims: CheckoutClaims) {
  const items = claims.lineItems ?? [];
  const sum = items.reduce((total, item) => total + item.unitPrice * item.quantity, 0);
  return items.length > 0 && sum === claims.amount ? items.map((i) => ({ productId: i.id, quantity: i.quantity, price: i.unitPrice })) : [{ productId: claims.orderId, quantity: 1, price: claims.amount }];
}

/**
 * Charges the card with the checkout's provider (docs/providers.md, one flow per provider). A
 * decline throws the API's 402 error; the intent gateway's 3-D Secure answers where to send the buyer.
 */
export async function payWithCard(provider: string, claims: CheckoutClaims, init: Initialized, form: CustomerForm, shown: CardForm): Promise<PayOutcome> {
  const card = cardFieldsOf(shown);
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
      return { transactionId: paid.transactionId };
    }
    case "intent_gateway": {
      // returnUrl: the bank's 3-D Secure page sends the buyer back here (docs/providers.md "3-D Secure").
      const confirmed = await post<ConfirmIntentReply>("/api/providers/intent_gateway/confirm", { paymentIntentId: init.providerOrderId, ...card, returnUrl: location.pathname });
      if (confirmed.status === "succeeded") return { transactionId: confirmed.paymentIntentId };
      const redirect = confirmed.status === "requires_action" ? safeNavigationTarget(confirmed.nextAction?.url, "") : "";
      if (redirect) return { redirect };
      throw new ApiError(402, "Payment needs a step this page cannot show", "PAYMENT_FAILED", "authentication_required");
    }
    case "order_crm_a": {
      const paid = await post<CrmAPaymentReply>("/api/providers/order_crm_a/process-payment", { ...base, crmAOrderId: init.providerOrderId });
      return { transactionId: paid.transactionId };
    }
    case "order_crm_b": {
      // No campaignId: the server takes the brand's order_crm_b campaign (docs/providers.md).
      const paid = await post<CrmBPaymentReply>("/api/providers/order_crm_b/process-payment", {
        ...base,
        customer: customerOf(form),
        billingAddress: addressOf(form),
        shippingAddress: addressOf(form),
        lineItems: productLines(claims),
        currency: claims.currency,
      });
      return { transactionId: paid.transactionId };
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
      return { transactionId: paid.transactionId };
    }
    default:
      throw new ApiError(400, `This page cannot take card payments for ${provider}.`);
  }
}

/** After the 3-D Secure page: the intent's outcome (succeeded, else the decline's 402). */
export async function intentOutcome(paymentIntentId: string): Promise<string> {
  const read = await api<ConfirmIntentReply>("/api/providers/intent_gateway/confirm", { body: { paymentIntentId } });
  if (read.status !== "succeeded") throw new ApiError(402, "Payment not confirmed", "PAYMENT_FAILED", "authentication_failed");
  return read.paymentIntentId;
}

/** Back from the store's checkout page: the paid draft's transaction (complete-checkout; a repeat replays). */
export async function storeOutcome(claims: CheckoutClaims, storeOrderId: string): Promise<string> {
  const done = await api<CompleteHostedCheckoutReply>("/api/providers/hosted_store/complete-checkout", { body: { storeOrderId, orderId: claims.orderId } });
  return done.transactionId;
}

export type Completed = CompleteResponse;

export async function completeCheckout(provider: string, claims: CheckoutClaims, providerOrderId: string | undefined, form: CustomerForm, transactionId: string): Promise<Completed> {
  return api<Completed>("/api/checkout/complete", {
    body: {
      orderId: claims.orderId,
      transactionId,
      provider,
      ...(providerOrderId ? { providerOrderId } : {}),
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
