// Standard Webhooks secrets, as both our outgoing signatures (webhooks/signer.ts) and the providers'
// incoming ones (providers/webhook-schemes.ts) key them (CONTRACT §29).

/** The prefix of a secret whose rest is base64 key bytes. */
export const WHSEC_PREFIX = "whsec_";

/** The HMAC key of a secret: base64 decoding of a `whsec_` secret's rest, else its UTF-8 bytes (CONTRACT §29). */
export function keyOfSecret(secret: string): Uint8Array {
  return secret.startsWith(WHSEC_PREFIX) ? Buffer.from(secret.slice(WHSEC_PREFIX.length), "base64") : Buffer.from(secret, "utf8");
}
