import { AppError, conflict, validationError } from "../lib/errors.js";

// Upsell error codes; statuses live in src/http/error-codes.ts. Texts from SPEC.md "Errors" are exact.
export const sessionExpired = () => new AppError("SESSION_EXPIRED", "Session expired");
export const offerNotFound = () => new AppError("OFFER_NOT_FOUND", "Offer not found in session");
export const sessionNotFound = () => new AppError("NOT_FOUND", "Session not found");
/**
 * No checkout order with that id, or (without a paymentMethodToken) one whose buyer e-mail is not
 * `customerEmail`: the two read alike (knowing an order id must not reveal it), and `details` names
 * the rule so a merchant who sent another e-mail knows where to look (issue 33).
 */
export const originalOrderNotFound = (withoutToken = false) =>
  new AppError(
    "NOT_FOUND",
    "Original order not found",
    withoutToken ? "originalOrderId (without paymentMethodToken, customerEmail must be the e-mail the original order was paid with)" : "originalOrderId",
  );
export const sessionCompleted = () => conflict("Session already completed");
export const offerAlreadyAnswered = () => conflict("Offer already answered");
/** CONTRACT §8: a token is usable only for upsells of the order it was issued for. */
export const tokenNotIssuedForOrder = () => validationError("Invalid request: paymentMethodToken was not issued for originalOrderId", "paymentMethodToken");
export const noSavedMethod = () => validationError("Invalid request: the original order has no saved payment method", "originalOrderId");
export const providerMismatch = () => validationError("Invalid request: provider is not the original order's provider", "provider");
/** CONTRACT §20. */
export const currencyMismatch = () => validationError("Invalid request: currency must be the original order's currency", "currency");
export const upsellWindowClosed = () => validationError("Invalid request: upsells are accepted only within 60 minutes of the original order", "originalOrderId");
/** A funnel named by a merchant server (upsell/funnel/named-session.ts) or the back office (funnels/). */
export const funnelNotFound = () => new AppError("NOT_FOUND", "Funnel not found");
export const duplicateOfferId = (field: string) => validationError(`Invalid request: ${field} repeats an offer id`, field);
