import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { WHSEC_PREFIX } from "../lib/webhook-secret.js";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** CONTRACT §29: an omitted endpoint secret is generated in the `whsec_` form (24 random bytes). */
export function generateSecret(): string {
  return WHSEC_PREFIX + randomBytes(24).toString("base64");
}

/** Why a supplied secret is refused (CONTRACT §29, §33: at least 16 characters; a `whsec_` one must be base64), or null. */
export function secretProblem(secret: string): string | null {
  if (secret.length < 16) return "must be at least 16 characters";
  if (secret.startsWith(WHSEC_PREFIX)) {
    const rest = secret.slice(WHSEC_PREFIX.length);
    if (!BASE64.test(rest) || Buffer.from(rest, "base64").length === 0) return "after whsec_ must be base64";
  }
  return null;
}

/** What GET shows instead of a secret: `whsec_…f3Qa`. */
export function maskSecret(secret: string): string {
  const head = secret.startsWith(WHSEC_PREFIX) ? WHSEC_PREFIX : "";
  return `${head}…${secret.slice(-4)}`;
}

export const SIGNATURE_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

/**
 * The Standard Webhooks headers of CONTRACT §14 for one send: one `v1,<sig>` per key, space-separated,
 * so a receiver verifying with any one of them (an old secret during a rotation) accepts the message.
 */
export function signatureHeaders(keys: readonly Uint8Array[], messageId: string, nowMs: number, body: string): Record<(typeof SIGNATURE_HEADERS)[number], string> {
  const timestamp = new Date(nowMs);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(nowMs / 1000)),
    "webhook-signature": keys.map((key) => new Webhook(key, { format: "raw" }).sign(messageId, timestamp, body)).join(" "),
  };
}
