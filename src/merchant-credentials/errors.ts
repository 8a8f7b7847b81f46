import { AppError } from "../lib/errors.js";

// Issue 15's exact texts: every refused key reads the same, so the answer tells nothing about why.
export const invalidApiKey = () => new AppError("UNAUTHORIZED", "Invalid API key");
export const apiKeyRequired = () => new AppError("UNAUTHORIZED", "API key required");
export const missingScope = (scope: string) => new AppError("FORBIDDEN", `API key lacks scope ${scope}`);
export const apiKeyNotFound = () => new AppError("NOT_FOUND", "API key not found");
export const signingKeyNotFound = () => new AppError("NOT_FOUND", "Signing key not found");
