import { AppError } from "../lib/errors.js";

// Errors payments raises that checkout answers too; statuses live in src/http/error-codes.ts. Texts from SPEC.md are exact.
/** The provider is not one the checkout allows, or a demo-only checkout meets a provider with real credentials. */
export const providerNotAllowed = () => new AppError("PROVIDER_NOT_ALLOWED", "Payment provider not allowed for this checkout");
