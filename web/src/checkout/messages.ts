/** The members of the API's errors (shared/api.ts ApiError) this file reads; dependency-free, so unit tests import it. */
interface ApiFailure {
  status: number;
  message: string;
  code?: string;
  details?: string;
  retryAfter?: number;
}
const isApiFailure = (error: unknown): error is ApiFailure => error instanceof Error && typeof (error as Partial<ApiFailure>).status === "number";

/** Decline reasons (docs/providers.md, the gateways' codes) as the buyer reads them. */
const DECLINES: Record<string, string> = {
  card_declined: "Your card was declined. Try another card.",
  generic_decline: "Your card was declined. Try another card.",
  do_not_honor: "Your card was declined. Try another card.",
  insufficient_funds: "Your card has insufficient funds. Try another card.",
  expired_card: "Your card has expired. Try another card.",
  incorrect_cvc: "The security code is not right. Check it and try again.",
  incorrect_number: "The card number is not right. Check it and try again.",
  lost_card: "Your card was declined. Try another card.",
  stolen_card: "Your card was declined. Try another card.",
  fraudulent: "Your card was declined. Try another card.",
  processing_error: "Your bank could not process the payment. Try again in a moment.",
  authentication_required: "Your bank asks to confirm this payment, which is not possible with this payment method. Try another card.",
  authentication_failed: "Your bank could not confirm the payment, so nothing was charged. Try again or use another card.",
};

/** The API's field names onto the page's inputs. */
const FIELD_OF: Record<string, string> = { cardExpMonth: "cardExp", cardExpYear: "cardExp" };
/** The API's field refusals in the buyer's words. */
const FIELD_SENTENCES: Record<string, string> = {
  cardNumber: "This card number is not valid. Check it and try again.",
  cardExp: "Check the expiry date: the card may have expired.",
  cardCvv: "Enter the security code on your card.",
};

/** "in 5 minutes", "in 1 hour", "in 40 seconds". */
export function waitText(seconds: number): string {
  if (seconds < 60) return `in ${Math.max(1, Math.round(seconds))} second${Math.round(seconds) === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `in ${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.round(minutes / 60);
  return `in ${hours} hour${hours === 1 ? "" : "s"}`;
}

/**
 * What the buyer reads for a refused payment: a sentence, and the page's field when the refusal is
 * about one. Never the API's own text with field names (that is for developers).
 */
export function explainPaymentError(error: unknown): { text: string; field?: string } {
  if (!isApiFailure(error)) return { text: "Something went wrong. Nothing was charged. Please try again." };
  switch (error.code) {
    case "PAYMENT_FAILED":
      return { text: DECLINES[error.details ?? ""] ?? "Your card was declined. Try another card." };
    case "TOO_MANY_DECLINES":
    case "RATE_LIMITED": {
      const when = error.retryAfter !== undefined ? waitText(error.retryAfter) : "later";
      return { text: `Too many payment attempts. For your security, please try again ${when}.` };
    }
    case "VALIDATION_ERROR": {
      const field = FIELD_OF[error.details ?? ""] ?? error.details;
      if (field && FIELD_SENTENCES[field]) return { text: FIELD_SENTENCES[field]!, field };
      return { text: "Some details were not accepted. Check the form and try again.", field };
    }
    case "PAYMENT_NOT_VERIFIED":
      return { text: "Your payment could not be confirmed, so the order was not placed. Please try again." };
    case "ALREADY_PAID":
    case "CHECKOUT_COMPLETED":
      return { text: "This order is already paid. Nothing more was charged." };
    case "PROVIDER_ERROR":
    case "PROVIDER_NOT_CONFIGURED":
    case "SERVICE_UNAVAILABLE":
      return { text: "The payment service is not answering right now. Nothing was charged. Please try again in a moment." };
  }
  if (error.status === 0) return { text: error.message };
  return { text: "The payment could not be made. Nothing was charged. Please try again." };
}
