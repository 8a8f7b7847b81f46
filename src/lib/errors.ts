/**
 * The error codes there are: filled by src/http/error-codes.ts, the one catalogue (code -> status
 * and default text), so lib/ knows no HTTP and an unknown code does not compile.
 */
export interface ErrorCodes {}
export type ErrorCode = keyof ErrorCodes & string;

/**
 * Domain errors. They carry a stable SCREAMING_SNAKE `code` of the catalogue, the human `error` text
 * SPEC.md shows, and optional `details`. They never choose an HTTP status: the catalogue maps code -> status.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: string,
    /** Extra members rendered into the error body (e.g. `authenticated: false`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const validationError = (message: string, details?: string) => new AppError("VALIDATION_ERROR", message, details);
export const notFound = (message = "Not found") => new AppError("NOT_FOUND", message);
export const unauthorized = (message = "Unauthorized") => new AppError("UNAUTHORIZED", message);
export const forbidden = (message = "Forbidden") => new AppError("FORBIDDEN", message);
export const conflict = (message: string, code: ErrorCode = "CONFLICT") => new AppError(code, message);
