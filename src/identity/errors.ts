import { AppError } from "../lib/errors.js";

// Identity error codes; statuses are in src/http/error-codes.ts. Texts from SPEC.md's error table are exact.
export const missingRequiredFields = () => new AppError("VALIDATION_ERROR", "Missing required fields");
export const emailAlreadyExists = () => new AppError("EMAIL_EXISTS", "Email already exists");
export const registrationDisabled = () => new AppError("REGISTRATION_DISABLED", "New user registration is currently disabled");
export const registrationMaintenance = () => new AppError("MAINTENANCE", "System is under maintenance");
export const invalidCredentials = () => new AppError("INVALID_CREDENTIALS", "Invalid email or password");
export const accountLocked = (retryAfterSeconds: number) =>
  new AppError("ACCOUNT_LOCKED", "Too many failed login attempts; password login is locked, try again later or use a magic link", undefined, { retryAfter: retryAfterSeconds });
export const tooManyAttempts = () => new AppError("TOO_MANY_LOGIN_ATTEMPTS", "Too many failed login attempts from this address; try again later");
export const missingFields = () => new AppError("VALIDATION_ERROR", "Missing fields");
export const twoFactorNotEnabled = () => new AppError("TWO_FACTOR_NOT_ENABLED", "2FA not enabled");
export const twoFactorAlreadyEnabled = () => new AppError("TWO_FACTOR_ALREADY_ENABLED", "2FA already enabled");
export const invalidCode = () => new AppError("INVALID_CODE", "Invalid code");
export const noOrganization = () => new AppError("NO_ORGANIZATION", "User has no organization");
