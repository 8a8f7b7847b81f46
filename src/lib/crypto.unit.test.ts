// Sealing of provider secrets at rest (CONTRACT §15): AES-256-GCM with the key's id in the value.
import { describe, expect, it } from "vitest";
import { decrypt, encrypt, keyId, seal, unseal } from "./crypto.js";
import { loadConfig } from "../config/index.js";

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 9);

describe("seal / unseal", () => {
  it("round-trips and names the key that sealed the value, never the plaintext", () => {
    const sealed = seal("sk_live_secret_4242", key);
    expect(sealed.startsWith(`v2:${keyId(key)}:`)).toBe(true);
    expect(sealed).not.toContain("sk_live");
    expect(unseal(sealed, [key])).toBe("sk_live_secret_4242");
    // A fresh IV each time: equal plaintexts do not give equal ciphertexts.
    expect(seal("sk_live_secret_4242", key)).not.toBe(sealed);
  });

  it("refuses a tampered ciphertext or tag", () => {
    const sealed = seal("secret value", key);
    const parts = sealed.split(":");
    const body = Buffer.from(parts[4]!, "base64url");
    body[0] = body[0]! ^ 1;
    expect(() => unseal([...parts.slice(0, 4), body.toString("base64url")].join(":"), [key])).toThrow();
    const tag = Buffer.from(parts[3]!, "base64url");
    tag[0] = tag[0]! ^ 1;
    expect(() => unseal([...parts.slice(0, 3), tag.toString("base64url"), parts[4]].join(":"), [key])).toThrow();
  });

  it("refuses a value sealed with another key, and a wrong key under the right id", () => {
    expect(() => unseal(seal("secret", otherKey), [key])).toThrow(/unknown key/);
    const sealed = seal("secret", key);
    const forged = sealed.replace(keyId(key), keyId(otherKey));
    expect(() => unseal(forged, [otherKey])).toThrow();
  });

  it("opens values of an older key kept in the keyring after a rotation", () => {
    const old = seal("old secret", otherKey);
    expect(unseal(old, [key, otherKey])).toBe("old secret");
  });

  it("refuses unreadable values", () => {
    for (const value of ["", "v1:a:b:c", "v2:abc", "plain text"]) expect(() => unseal(value, [key])).toThrow();
  });
});

describe("key rotation (ENCRYPTION_KEY_PREVIOUS)", () => {
  const oldKey = Buffer.alloc(32, 1);
  const newKey = Buffer.alloc(32, 2);
  const rotated = loadConfig({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: "s".repeat(32), ENCRYPTION_KEY: newKey.toString("base64"), ENCRYPTION_KEY_PREVIOUS: oldKey.toString("hex") });

  it("values written with the old key still open after the rotation, in both formats", () => {
    expect(rotated.encryptionKeyring).toEqual([newKey, oldKey]);
    expect(unseal(seal("provider secret", oldKey), rotated.encryptionKeyring)).toBe("provider secret");
    expect(decrypt(encrypt("whsec_old", oldKey), rotated.encryptionKeyring)).toBe("whsec_old");
    expect(decrypt(seal("sealed v2", oldKey), rotated.encryptionKeyring)).toBe("sealed v2");
  });

  it("new writes use the new key: the old key alone cannot open them", () => {
    const sealed = seal("new secret", rotated.encryptionKey);
    expect(sealed.split(":")[1]).toBe(keyId(newKey));
    expect(() => unseal(sealed, [oldKey])).toThrow();
    const encrypted = encrypt("new whsec", rotated.encryptionKey);
    expect(() => decrypt(encrypted, [oldKey])).toThrow();
    expect(decrypt(encrypted, rotated.encryptionKeyring)).toBe("new whsec");
  });

  it("a value of a key no longer in the keyring does not open", () => {
    const retired = Buffer.alloc(32, 3);
    expect(() => decrypt(encrypt("gone", retired), rotated.encryptionKeyring)).toThrow();
    expect(() => unseal(seal("gone", retired), rotated.encryptionKeyring)).toThrow("unknown key");
  });
});
