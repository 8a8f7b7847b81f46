import { AppError, validationError } from "../lib/errors.js";

// Funnel errors; statuses live in src/http/error-codes.ts.
export const variantNotFound = () => validationError("Invalid request: no such variant in that step", "variantId");
export const backToDraft = () => validationError("Invalid request: a funnel that ran cannot go back to draft", "status");
export const duplicateVariantId = (field: string) => validationError(`Invalid request: ${field} repeats a variant id`, field);
export const minAboveMax = (field: string) => validationError(`Invalid request: ${field}.min is above its max`, field);
