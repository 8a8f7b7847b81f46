import { hash, verify, type Algorithm } from "@node-rs/argon2";
import { validationError } from "../lib/errors.js";
import { COMMON_PASSWORDS } from "./common-passwords.js";

// OWASP's minimum for argon2id: m=19 MiB, t=2, p=1. `Algorithm` is a const enum (2 = Argon2id).
const ARGON2ID = { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** CONTRACT §23: 12 to 128 characters, no composition rules, common passwords refused. */
export function checkPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw validationError(`Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, "password");
  }
  if (COMMON_PASSWORDS.has(password.toLowerCase())) throw validationError("Password is too common", "password");
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

// Verified against when the email is unknown or has no password, so that path costs the same
// as a wrong password (no user enumeration through timing). Computed once, lazily.
let dummyHash: Promise<string> | undefined;

/** Constant-work check: always runs one argon2id verify, whether or not a hash exists. */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  const target = storedHash ?? (await (dummyHash ??= hashPassword("dummy-password-for-timing-equality")));
  try {
    const ok = await verify(target, password);
    return ok && !!storedHash;
  } catch {
    return false;
  }
}
