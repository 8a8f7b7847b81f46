import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** SHA-256 hex digest: how tokens and session ids are stored (never the raw value). */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** HMAC-SHA-256 hex: a fingerprint of a value that may hold card data, not reversible without the key. */
export function keyedHash(value: string, key: Buffer): string {
  return createHmac("sha256", key).update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * AES-256-GCM; output `v1:<iv>:<tag>:<ciphertext>` in base64url. The old format, which names no key:
 * new values use `seal` (v2); `decrypt` still opens both, and `npm run rotate-keys` turns v1 into v2.
 */
export function encrypt(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(":");
}

/**
 * Opens an `encrypt` (v1) or `seal` (v2) value. With a keyring (current key first, then the previous
 * keys of ENCRYPTION_KEY_PREVIOUS) a v2 value opens with the key its id names and a v1 value, which
 * names no key, with the first key whose GCM tag verifies.
 */
export function decrypt(sealed: string, key: Buffer | readonly Buffer[]): string {
  const keyring = Buffer.isBuffer(key) ? [key] : key;
  if (sealed.startsWith("v2:")) return unseal(sealed, keyring);
  const [version, iv, tag, body] = sealed.split(":");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new UndecryptableSecret("unreadable ciphertext");
  for (const candidate of keyring) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", candidate, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      // the next key
    }
  }
  throw new UndecryptableSecret("sealed in the old format (no key id) and opened by no key of ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS");
}

/** A sealed value no key of the keyring opens: its key is no longer configured, or the value was altered. */
export class UndecryptableSecret extends Error {
  override name = "UndecryptableSecret";
}

/** True when `sealed` is a v2 value naming `key` (the current key): nothing to re-seal. */
export function isSealedWith(sealed: string, key: Buffer): boolean {
  return sealed.startsWith(`v2:${keyId(key)}:`);
}

/**
 * The id of an encryption key: 8 hex characters of a hash of the key, so a sealed value names the
 * key that sealed it without revealing it. After a key rotation the old key stays in the keyring
 * (decryption only) and each value opens with the key its id names.
 */
export function keyId(key: Buffer): string {
  return createHash("sha256").update("key-id:").update(key).digest("hex").slice(0, 8);
}

/** AES-256-GCM with the key id in the clear: `v2:<keyId>:<iv>:<tag>:<ciphertext>` (base64url parts). */
export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v2", keyId(key), iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(":");
}

/**
 * Opens a value sealed by `seal` with the keyring key its id names (first key = current key).
 * Throws on an unknown key id, a wrong key or any tampering (the GCM tag does not verify).
 */
export function unseal(sealed: string, keyring: readonly Buffer[]): string {
  const [version, kid, iv, tag, body, ...rest] = sealed.split(":");
  if (version !== "v2" || !kid || !iv || !tag || body === undefined || rest.length > 0) throw new UndecryptableSecret("unreadable ciphertext");
  const key = keyring.find((k) => keyId(k) === kid);
  if (!key) throw new UndecryptableSecret(`sealed with an unknown key ${kid} (neither ENCRYPTION_KEY nor in ENCRYPTION_KEY_PREVIOUS)`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new UndecryptableSecret(`sealed with key ${kid} but its tag does not verify (the value was altered)`);
  }
}
