/**
 * Domain errors. They carry a stable SCREAMING_SNAKE `code`, the human `error` text SPEC.md shows,
 * and optional `details`. They never choose an HTTP status: src/http/error-codes.ts maps code -> status.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
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
export const conflict = (message: string, code = "CONFLICT") => new AppError(code, message);
