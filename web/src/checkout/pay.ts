import type { CheckoutProvidersResponse, CompleteHostedCheckoutReply, CompleteResponse, ConfirmIntentReply, InitializeResponse, PayResponse } from "../shared/api-types";
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

/** A payment either made (its transaction id, at the provider that charged) or waiting for the buyer on the bank's 3-D Secure page. */
export type PayOutcome = { transactionId: string; provider: string; providerOrderId: string } | { redirect: string; provider: string };

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

/**
 * Charges the card through POST /api/checkout/pay (docs/orchestration.md "Cascades"): the checkout's
 * provider, or the brand's routed providers, where a soft decline at the first is tried at the next
 * within the same request (the buyer sees a longer spinner). A decline throws the API's 402 error;
 * the intent gateway's 3-D Secure answers where to send the buyer. `provider` and `providerOrderId`
 * are the charging provider's: complete names them.
 */
export async function payWithCard(claims: CheckoutClaims, form: CustomerForm, shown: CardForm): Promise<PayOutcome> {
  // One key per pay attempt (CONTRACT §17): a double submit or a retried request charges once.
  const paid = await api<PayResponse>("/api/checkout/pay", {
    body: {
      orderId: claims.orderId,
      ...cardFieldsOf(shown),
      customer: customerOf(form),
      billingAddress: addressOf(form),
      shippingAddress: addressOf(form),
      // The bank's 3-D Secure page sends the buyer back here (docs/providers.md "3-D Secure").
      returnUrl: location.pathname,
    },
    idempotencyKey: crypto.randomUUID(),
  });
  if (paid.status === "succeeded") return { transactionId: paid.transactionId, provider: paid.provider, providerOrderId: paid.providerOrderId };
  const redirect = safeNavigationTarget(paid.nextAction?.url, "");
  if (redirect) return { redirect, provider: paid.provider };
  throw new ApiError(402, "Payment needs a step this page cannot show", "PAYMENT_FAILED", "authentication_required");
}

/** The provider the page initializes with: the token's; else the first the token allows (card-taking first, CONTRACT §4). */
export async function checkoutProvider(token: string, claims: CheckoutClaims): Promise<string> {
  if (claims.provider) return claims.provider;
  const { providers } = await api<CheckoutProvidersResponse>("/api/checkout/providers", { body: { token } });
  return providers[0] ?? "vault_gateway_b";
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
