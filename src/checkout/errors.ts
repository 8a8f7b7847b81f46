import { AppError } from "../lib/errors.js";

// Checkout error codes (CONTRACT §3); statuses live in src/http/error-codes.ts. Texts from SPEC.md are exact.
export const invalidToken = () => new AppError("INVALID_TOKEN", "Invalid token");
export const checkoutNotFound = () => new AppError("CHECKOUT_NOT_FOUND", "Checkout not found");
export const checkoutExpired = () => new AppError("CHECKOUT_EXPIRED", "Checkout expired");
export const checkoutCompleted = () => new AppError("CHECKOUT_COMPLETED", "Checkout already completed");
/** A token minted from a payment link that is disabled or expired now (issue 31): gone, as opening the link is. */
export const paymentLinkGone = () => new AppError("CHECKOUT_EXPIRED", "Payment link no longer available");
/** The public token generator's orderId belongs to a checkout of another origin (API, signing key, link): issue 31. */
export const orderIdTaken = () => new AppError("ORDER_ID_TAKEN", "orderId already has a checkout", "orderId");
export const paymentNotVerified = (reason: string) => new AppError("PAYMENT_NOT_VERIFIED", "Payment could not be verified", reason);
export const idempotencyConflict = () =>
  new AppError("IDEMPOTENCY_CONFLICT", "Order already completed with another transaction or amount");
export const providerFailed = (provider: string) => new AppError("PROVIDER_ERROR", `Payment provider ${provider} failed`);
export const crmFailed = (provider: string) => new AppError("PROVIDER_ERROR", `CRM recording with ${provider} failed`);
