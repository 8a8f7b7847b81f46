// Sealing of provider secrets at rest (CONTRACT §15): AES-256-GCM with the key's id in the value.
import { describe, expect, it } from "vitest";
import { keyId, seal, unseal } from "./crypto.js";

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
