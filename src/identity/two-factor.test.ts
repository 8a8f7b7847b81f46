// TOTP two-factor (SPEC "Two-factor authentication", CONTRACT §10, §28): setup, confirm, the
// pending login of a 2FA user, verify's check order, drift windows with a moved clock, reuse,
// and the five-attempt cap.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { loginAttempts, mailOutbox, sessions, users } from "../db/schema/index.js";
import { auditActions, call, cookieOf, PASSWORD, pendingOf, registerUser, registerWithTwoFactor, sessionOf } from "../../test/support/identity.js";
import { testEngine } from "../../test/support/database.js";
import { seal } from "../lib/crypto.js";
import { CODE_LOCK_MS } from "./policy.js";
import { totpCode } from "./totp.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A registered user with 2FA enabled; returns the secret. */
async function withTwoFactor() {
  const user = await registerUser(t);
  const setup = await call(t, "GET", "/api/auth/2fa/setup", { session: user.session });
  expect(setup.statusCode).toBe(200);
  const { secret, otpauth_url, enabled } = json(setup);
  expect(enabled).toBe(false);
  expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/.+secret=/);
  expect(otpauth_url).toContain("period=30");
  const confirm = await call(t, "POST", "/api/auth/2fa/confirm", { session: user.session, body: { secret, token: totpCode(secret, t.clock.now()) } });
  expect(confirm.statusCode).toBe(200);
  t.clock.advance(30_000); // the confirm code's step is used; move on
  return { ...user, secret, session: sessionOf(confirm) };
}

async function pendingLogin(email: string) {
  const res = await call(t, "POST", "/api/admin/auth", { body: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(200);
  expect(cookieOf(res, "admin_session")).toBeUndefined();
  return { body: json(res), pending: pendingOf(res) };
}

const verify = (body: unknown, pending?: string) => call(t, "POST", "/api/auth/2fa/verify", { body, pending });

describe("setup and confirm", () => {
  it("enables 2FA with a valid code, stores the secret encrypted, rotates the session", async () => {
    const user = await withTwoFactor();
    const [row] = await t.deps.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(row.totpEnabled).toBe(true);
    expect(row.totpSecretSealed).not.toContain(user.secret);
    expect(json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session }))).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    const actions = (await auditActions(t, user.userId)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["two_factor.setup", "two_factor.enable"]));
  });

  it("refuses a wrong code (401 Invalid code) and needs a session (401)", async () => {
    const user = await registerUser(t);
    const { secret } = json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session }));
    const res = await call(t, "POST", "/api/auth/2fa/confirm", { session: user.session, body: { secret, token: "000000" === totpCode(secret, t.clock.now()) ? "111111" : "000000" } });
    expect(res.statusCode).toBe(401);
    expect(json(res).error).toBe("Invalid code");
    expect((await call(t, "GET", "/api/auth/2fa/setup")).statusCode).toBe(401);
  });
});

describe("login of a 2FA user", () => {
  it("answers requires2FA with only a pending cookie, then verify sets the session", async () => {
    const user = await withTwoFactor();
    const { body, pending } = await pendingLogin(user.email);
    expect(body).toEqual({ success: true, requires2FA: true, userId: user.userId });
    const sessionsBefore = await t.deps.database.db.select().from(sessions).where(eq(sessions.userId, user.userId));
    const res = await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, pending);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true });
    const session = sessionOf(res);
    expect(cookieOf(res, "admin_session")).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect((await t.deps.database.db.select().from(sessions).where(eq(sessions.userId, user.userId))).length).toBe(sessionsBefore.length + 1);
    expect(json(await call(t, "GET", "/api/admin/auth", { session })).session.userId).toBe(user.userId);
    expect((await auditActions(t, user.userId)).some((a) => a.action === "two_factor.verify" && a.success)).toBe(true);
  });

  it("checks in CONTRACT §28's order", async () => {
    const user = await withTwoFactor();
    const plain = await registerUser(t);
    const { pending } = await pendingLogin(user.email);
    const code = totpCode(user.secret, t.clock.now());
    const cases: [unknown, string | undefined, number, string][] = [
      [{}, pending, 400, "Missing fields"],
      [{ userId: user.userId }, pending, 400, "Missing fields"],
      [{ token: code }, pending, 400, "Missing fields"],
      [{ userId: plain.userId, token: code }, pending, 400, "2FA not enabled"],
      [{ userId: "usr_unknown", token: code }, pending, 400, "2FA not enabled"],
      [{ userId: user.userId, token: code }, undefined, 401, "Invalid code"],
      [{ userId: user.userId, token: code }, "forged-pending-cookie-value", 401, "Invalid code"],
      [{ userId: user.userId, token: "12345x" }, pending, 401, "Invalid code"],
    ];
    for (const [body, cookie, status, error] of cases) {
      const res = await verify(body, cookie);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(json(res).error, JSON.stringify(body)).toBe(error);
    }
    const noBody = await t.app.inject({ method: "POST", url: "/api/auth/2fa/verify" });
    expect(noBody.statusCode).toBe(400);
    expect(json(noBody).error).toBe("Missing fields");
  });

  it("refuses another user's pending cookie", async () => {
    const one = await withTwoFactor();
    const two = await withTwoFactor();
    const { pending } = await pendingLogin(one.email);
    const res = await verify({ userId: two.userId, token: totpCode(two.secret, t.clock.now()) }, pending);
    expect(res.statusCode).toBe(401);
  });

  it.each([
    [-30_000, 200],
    [0, 200],
    [30_000, 200],
    [-60_000, 401],
    [60_000, 401],
  ])("code from %i ms away is answered %i (one step of drift)", async (offset, status) => {
    const user = await withTwoFactor();
    t.clock.advance(5 * 60_000);
    const { pending } = await pendingLogin(user.email);
    // Align to the middle of a step, so "one step" is unambiguous.
    const now = t.clock.now();
    t.clock.set(now - (now % 30_000) + 15_000);
    const res = await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now() + offset) }, pending);
    expect(res.statusCode).toBe(status);
  });

  it("accepts each code once", async () => {
    const user = await withTwoFactor();
    const first = await pendingLogin(user.email);
    const code = totpCode(user.secret, t.clock.now());
    expect((await verify({ userId: user.userId, token: code }, first.pending)).statusCode).toBe(200);
    const second = await pendingLogin(user.email);
    const reuse = await verify({ userId: user.userId, token: code }, second.pending);
    expect(reuse.statusCode).toBe(401);
    expect(json(reuse).error).toBe("Invalid code");
    // An older step than the one used is refused too.
    expect((await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now() - 30_000) }, second.pending)).statusCode).toBe(401);
    t.clock.advance(30_000);
    expect((await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, second.pending)).statusCode).toBe(200);
  });

  it("ends the pending login after five wrong codes", async () => {
    const user = await withTwoFactor();
    const { pending } = await pendingLogin(user.email);
    const right = totpCode(user.secret, t.clock.now());
    const wrong = right === "000000" ? "999999" : "000000";
    for (let i = 0; i < 5; i++) expect((await verify({ userId: user.userId, token: wrong }, pending)).statusCode).toBe(401);
    expect((await verify({ userId: user.userId, token: right }, pending)).statusCode).toBe(401);
    const failures = (await auditActions(t, user.userId)).filter((a) => a.action === "two_factor.verify" && !a.success);
    expect(failures.length).toBeGreaterThanOrEqual(6);
  });
});

describe("a TOTP secret sealed with a key the server no longer has", () => {
  it("answers verify 409 naming the cause (never 500), and confirm asks for a new setup", async () => {
    const user = await withTwoFactor();
    const lost = Buffer.alloc(32, 99);
    await t.deps.database.db.update(users).set({ totpSecretSealed: seal(user.secret, lost) }).where(eq(users.id, user.userId));
    const { pending } = await pendingLogin(user.email);
    const res = await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, pending);
    expect(res.statusCode).toBe(409);
    expect(json(res)).toMatchObject({ code: "CONFLICT", error: expect.stringContaining("Two-factor secret cannot be decrypted") });
    expect(cookieOf(res, "admin_session")).toBeUndefined();

    const other = await registerUser(t);
    const { secret } = json(await call(t, "GET", "/api/auth/2fa/setup", { session: other.session }));
    await t.deps.database.db.update(users).set({ totpPendingSecretSealed: seal(secret, lost) }).where(eq(users.id, other.userId));
    const confirm = await call(t, "POST", "/api/auth/2fa/confirm", { session: other.session, body: { secret, token: totpCode(secret, t.clock.now()) } });
    expect(confirm.statusCode).toBe(400);
    expect(json(confirm).error).toContain("run setup again");
  });
});

// Issue 31 item 7: ten wrong TOTP codes per user per hour, across every login and 2FA step, lock TOTP
// codes for that user (429, even the right code) with a mail; a recovery code still works.
describe("the per-user limit on TOTP codes", () => {
  /** Six digits that no step within drift of now accepts. */
  const wrongCode = (secret: string, seed: number) => {
    const valid = new Set([-30_000, 0, 30_000].map((offset) => totpCode(secret, t.clock.now() + offset)));
    for (let n = seed; ; n++) {
      const code = String((n * 7919) % 1_000_000).padStart(6, "0");
      if (!valid.has(code)) return code;
    }
  };
  const lockMails = (email: string) => t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email)).then((rows) => rows.filter((row) => /locked/i.test(row.subject)));

  it("refuses the 11th code over four password logins, even the right one, mails the user once; a recovery code still signs in", async () => {
    const user = await registerWithTwoFactor(t);
    let guesses = 0;
    // Three logins with three wrong codes each, then a fourth login's tenth: all answered 401 as before.
    for (const perLogin of [3, 3, 3, 1]) {
      const { pending } = await pendingLogin(user.email);
      for (let i = 0; i < perLogin; i++) {
        const res = await verify({ userId: user.userId, token: wrongCode(user.secret, ++guesses) }, pending);
        expect(res.statusCode, `wrong code ${guesses}`).toBe(401);
      }
    }
    expect(guesses).toBe(10);
    // The 11th, on a fresh pending login, is the right code: refused, unchecked.
    const { pending } = await pendingLogin(user.email);
    const refused = await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, pending);
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toMatchObject({ code: "TOO_MANY_LOGIN_ATTEMPTS", retryAfter: CODE_LOCK_MS / 1000 });
    expect(cookieOf(refused, "admin_session")).toBeUndefined();

    const mails = await lockMails(user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("recovery code");
    const lock = (await auditActions(t, user.userId)).filter((a) => a.action === "user.lock");
    expect(lock).toMatchObject([{ success: true, details: { factor: "two_factor", failures: 10 } }]);

    // A recovery code still works, on the same pending login (the refused code did not use it up).
    const recovered = await verify({ userId: user.userId, token: user.recoveryCodes[0] }, pending);
    expect(recovered.statusCode).toBe(200);
    expect(json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(recovered) })).session.userId).toBe(user.userId);
    // Still locked for codes; no second mail.
    const again = await pendingLogin(user.email);
    expect((await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, again.pending)).statusCode).toBe(429);
    expect(await lockMails(user.email)).toHaveLength(1);

    // An hour on, codes work again.
    t.clock.advance(CODE_LOCK_MS);
    const later = await pendingLogin(user.email);
    expect((await verify({ userId: user.userId, token: totpCode(user.secret, t.clock.now()) }, later.pending)).statusCode).toBe(200);
  });

  it("counts another user's codes apart, and a right code is no failure", async () => {
    const one = await registerWithTwoFactor(t);
    const two = await registerWithTwoFactor(t);
    for (let round = 0; round < 3; round++) {
      const { pending } = await pendingLogin(one.email);
      for (let i = 0; i < 3; i++) expect((await verify({ userId: one.userId, token: wrongCode(one.secret, round * 3 + i) }, pending)).statusCode).toBe(401);
      t.clock.advance(30_000);
      expect((await verify({ userId: one.userId, token: totpCode(one.secret, t.clock.now()) }, (await pendingLogin(one.email)).pending)).statusCode).toBe(200);
    }
    // Nine wrong codes and three right ones: the tenth wrong code is still answered 401, then 429.
    const { pending } = await pendingLogin(one.email);
    expect((await verify({ userId: one.userId, token: wrongCode(one.secret, 50) }, pending)).statusCode).toBe(401);
    expect((await verify({ userId: one.userId, token: wrongCode(one.secret, 51) }, pending)).statusCode).toBe(429);
    // The other user is not affected.
    expect((await verify({ userId: two.userId, token: totpCode(two.secret, t.clock.now()) }, (await pendingLogin(two.email)).pending)).statusCode).toBe(200);
  });

  // PGlite has one connection, so requests never overlap there: the race is on the PostgreSQL leg.
  it.skipIf(testEngine === "pglite")("checks exactly ten of 30 concurrent wrong codes; one lock, one mail", async () => {
    const user = await registerWithTwoFactor(t);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: wrongCode(user.secret, 100 + i) } })),
    );
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    const failures = await t.deps.database.db.select().from(loginAttempts).where(eq(loginAttempts.email, user.email));
    expect(failures.filter((row) => row.factor === "two_factor" && !row.success)).toHaveLength(10);
    expect(await lockMails(user.email)).toHaveLength(1);
    // The right code is refused while locked; the user's 2FA stays on.
    expect((await call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: totpCode(user.secret, t.clock.now()) } })).statusCode).toBe(429);
    const [row] = await t.deps.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(row!.totpEnabled).toBe(true);
  });
});
