// TOTP matching (CONTRACT §10): RFC 6238 SHA-1 test vector, one step of drift either way, nothing older or newer.
import { describe, expect, it } from "vitest";
import { matchTotpStep, newTotpSecret, stepOf, totpCode } from "./totp.js";

describe("TOTP", () => {
  it("matches RFC 6238's SHA-1 vector (59 s -> 287082)", () => {
    // Base32 of the ASCII secret "12345678901234567890".
    expect(totpCode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 59_000)).toBe("287082");
  });

  it("accepts previous, current and next step and names the step", () => {
    const secret = newTotpSecret();
    const now = 1_700_000_015_000;
    for (const delta of [-1, 0, 1]) expect(matchTotpStep(secret, totpCode(secret, now + delta * 30_000), now)).toBe(stepOf(now) + delta);
    for (const delta of [-3, -2, 2, 3]) expect(matchTotpStep(secret, totpCode(secret, now + delta * 30_000), now)).toBeNull();
    expect(matchTotpStep(secret, "abcdef", now)).toBeNull();
    expect(matchTotpStep(secret, "1234567", now)).toBeNull();
  });
});
