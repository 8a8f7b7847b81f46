import { randomBytes } from "node:crypto";

/** A random id with 128 bits of entropy and a short type prefix, so a stray id in a log explains itself. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}

/** A random URL-safe string of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
