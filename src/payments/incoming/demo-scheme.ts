import { createHmac } from "node:crypto";
import { safeEqual } from "../../lib/crypto.js";

/**
 * The demo signature scheme for incoming provider notifications (docs/webhooks.md "Incoming"):
 * `x-demo-timestamp: <Unix seconds>` and `x-demo-signature: v1=<hex HMAC-SHA256(key, "<timestamp>.<raw body>")>`,
 * keyed with CHECKOUT_TOKEN_SECRET's UTF-8 bytes.
 */
export const DEMO_TIMESTAMP_HEADER = "x-demo-timestamp";
export const DEMO_SIGNATURE_HEADER = "x-demo-signature";

export function demoSignature(secret: string, timestampSeconds: number | string, body: string | Buffer): string {
  return "v1=" + createHmac("sha256", secret).update(`${timestampSeconds}.`).update(body).digest("hex");
}

/** Whether any of the (comma- or space-separated) signatures in the header matches. */
export function isDemoSignatureValid(secret: string, timestamp: string, body: string | Buffer, header: string): boolean {
  const expected = demoSignature(secret, timestamp, body);
  return header
    .split(/[,\s]+/)
    .filter(Boolean)
    .some((candidate) => safeEqual(candidate, expected));
}
