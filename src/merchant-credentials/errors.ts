import { AppError } from "../lib/errors.js";

// Issue 15's exact texts: every refused key reads the same, so the answer tells nothing about why.
export const invalidApiKey = () => new AppError("UNAUTHORIZED", "Invalid API key");
export const apiKeyRequired = () => new AppError("UNAUTHORIZED", "API key required");
export const missingScope = (scope: string) => new AppError("FORBIDDEN", `API key lacks scope ${scope}`);
export const apiKeyNotFound = () => new AppError("NOT_FOUND", "API key not found");
export const signingKeyNotFound = () => new AppError("NOT_FOUND", "Signing key not found");
/** CONTRACT §39: a test key with PAYMENT_MODE=live (the operator refuses test mode altogether). */
export const testKeyRefused = () => new AppError("UNAUTHORIZED", "Test API keys are refused: this service runs in live mode only (PAYMENT_MODE=live); use an sk_live_ key");
/** A key of one mode acting on an object of the other: as if the object did not exist (modes never mix). */
export const otherModeNotFound = (what: string, livemode: boolean) =>
  new AppError("NOT_FOUND", `${what} not found in ${livemode ? "live" : "test"} mode (a ${livemode ? "test" : "live"} object has that id: use a key of its mode)`);
