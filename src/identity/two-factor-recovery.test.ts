// 2FA recovery (issue 18 item 15): ten single-use recovery codes minted at confirm and stored
// hashed, usable at the 2FA step once each (wrong ones count toward the five), renewed with a current
// TOTP code; 2FA turned off with a TOTP or recovery code; setup keeps its pending secret.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { twoFactorRecoveryCodes, users } from "../db/schema/index.js";
import { auditActions, call, PASSWORD, pendingOf, registerUser, registerWithTwoFactor, sessionOf } from "../../test/support/identity.js";
import { totpCode } from "./totp.js";
import { claimRecoveryCode } from "./two-factor-recovery.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const withTwoFactor = () => registerWithTwoFactor(t);

async function pendingLogin(email: string) {
  const res = await call(t, "POST", "/api/admin/auth", { body: { email, password: PASSWORD } });
  expect(json(res).requires2FA).toBe(true);
  return pendingOf(res);
}
const verify = (userId: string, token: string, pending: string) => call(t, "POST", "/api/auth/2fa/verify", { body: { userId, token }, pending });
const wrongTotp = (secret: string) => (totpCode(secret, t.clock.now()) === "000000" ? "999999" : "000000");

describe("recovery codes", () => {
  it("confirm answers ten distinct codes once; only their keyed hashes are stored", async () => {
    const user = await withTwoFactor();
    expect(user.recoveryCodes).toHaveLength(10);
    expect(new Set(user.recoveryCodes).size).toBe(10);
    for (const code of user.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const rows = await t.deps.database.db.select().from(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.userId));
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const code of user.recoveryCodes) expect(stored).not.toContain(code.replaceAll("-", ""));
    expect(json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session }))).toEqual({ enabled: true, recoveryCodesLeft: 10 });
  });

  it("a recovery code signs in once (any case, with or without dashes); a second use is refused", async () => {
    const user = await withTwoFactor();
    const code = user.recoveryCodes[3];
    const res = await verify(user.userId, ` ${code.toUpperCase().replaceAll("-", " ")} `, await pendingLogin(user.email));
    expect(res.statusCode).toBe(200);
    expect(json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(res) })).session.userId).toBe(user.userId);
    const again = await verify(user.userId, code, await pendingLogin(user.email));
    expect(again.statusCode).toBe(401);
    expect(json(again).error).toBe("Invalid code");
    expect(json(await call(t, "GET", "/api/auth/2fa/setup", { session: sessionOf(res) })).recoveryCodesLeft).toBe(9);
    const audit = await auditActions(t, user.userId);
    expect(audit.find((a) => a.action === "two_factor.recovery_code_use")).toMatchObject({ success: true, details: { recoveryCodesLeft: 9 } });
    expect(audit.find((a) => a.action === "user.login" && a.success && (a.details as any)?.secondFactor === "recovery_code")).toBeDefined();
    // Another user's code is no code for this user.
    const other = await withTwoFactor();
    expect((await verify(user.userId, other.recoveryCodes[0], await pendingLogin(user.email))).statusCode).toBe(401);
  });

  it("the same code claimed five times at once is used once", async () => {
    // A user has one pending login at a time, so the race is on the code itself.
    const user = await withTwoFactor();
    const ctx = { config: t.deps.config, clock: t.deps.clock };
    const claims = await Promise.all(Array.from({ length: 5 }, () => claimRecoveryCode(t.deps.database.db, ctx, user.userId, user.recoveryCodes[5]!)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it("wrong recovery codes count toward the five wrong codes of a pending login", async () => {
    const user = await withTwoFactor();
    const pending = await pendingLogin(user.email);
    for (let i = 0; i < 4; i++) expect((await verify(user.userId, `aaaa-bbbb-ccc${i + 2}`, pending)).statusCode).toBe(401);
    expect((await verify(user.userId, wrongTotp(user.secret), pending)).statusCode).toBe(401);
    // The pending login is over: even a good recovery code is refused, and it stays unused.
    expect((await verify(user.userId, user.recoveryCodes[0], pending)).statusCode).toBe(401);
    expect((await verify(user.userId, user.recoveryCodes[0], await pendingLogin(user.email))).statusCode).toBe(200);
  });

  it("regenerating needs a current TOTP code; the old codes stop working", async () => {
    const user = await withTwoFactor();
    const refused = await call(t, "POST", "/api/auth/2fa/recovery-codes", { session: user.session, body: { token: user.recoveryCodes[0] } });
    expect(refused.statusCode).toBe(401);
    expect(json(refused).error).toBe("Invalid code");
    const res = await call(t, "POST", "/api/auth/2fa/recovery-codes", { session: user.session, body: { token: totpCode(user.secret, t.clock.now()) } });
    expect(res.statusCode).toBe(200);
    const fresh = json(res).recoveryCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => user.recoveryCodes.includes(c))).toBe(false);
    expect((await verify(user.userId, user.recoveryCodes[1], await pendingLogin(user.email))).statusCode).toBe(401);
    expect((await verify(user.userId, fresh[0], await pendingLogin(user.email))).statusCode).toBe(200);
    expect((await auditActions(t, user.userId)).filter((a) => a.action === "two_factor.recovery_codes_generate").map((a) => a.success)).toEqual([false, true]);
  });
});

describe("turning 2FA off", () => {
  it("with a current TOTP code: login no longer asks for a code, codes and secret are gone", async () => {
    const user = await withTwoFactor();
    const wrong = await call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: wrongTotp(user.secret) } });
    expect(wrong.statusCode).toBe(401);
    expect(json(wrong).error).toBe("Invalid code");
    const res = await call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: totpCode(user.secret, t.clock.now()) } });
    expect(res.statusCode).toBe(200);
    const [row] = await t.deps.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(row).toMatchObject({ totpEnabled: false, totpSecretSealed: null, totpPendingSecretSealed: null });
    expect(await t.deps.database.db.select().from(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.userId))).toEqual([]);
    const login = await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: PASSWORD } });
    expect(json(login).requires2FA).toBeUndefined();
    expect(json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session })).enabled).toBe(false);
    // Off already: 400.
    const again = await call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: "123456" } });
    expect(again.statusCode).toBe(400);
    expect(json(again).error).toBe("2FA not enabled");
    expect((await auditActions(t, user.userId)).filter((a) => a.action === "two_factor.disable").map((a) => a.success)).toEqual([false, true]);
  });

  it("with a recovery code (used up by it)", async () => {
    const user = await withTwoFactor();
    const res = await call(t, "POST", "/api/auth/2fa/disable", { session: user.session, body: { token: user.recoveryCodes[9] } });
    expect(res.statusCode).toBe(200);
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: PASSWORD } })).json().requires2FA).toBeUndefined();
  });

  // Issue 31 item 7: the limit is the user's, the same as at login, whatever organization the session
  // is on (it was counted per organization: any user can create one and switch to it for five more).
  it("ten wrong codes, also across organizations, refuse further tries, even a right one (429); a recovery code still works", async () => {
    const user = await withTwoFactor();
    const disable = (session: string, token: string) => call(t, "POST", "/api/auth/2fa/disable", { session, body: { token } });
    /** A new organization of the user's, and a session switched to it. */
    const newOrganization = async (session: string, name: string) => {
      const created = await call(t, "POST", "/api/admin/organizations", { session, body: { name } });
      expect(created.statusCode, created.body).toBe(200);
      const switched = await call(t, "POST", "/api/admin/auth/switch-org", { session, body: { organizationId: json(created).id } });
      expect(switched.statusCode, switched.body).toBe(200);
      return sessionOf(switched);
    };
    for (let i = 0; i < 5; i++) expect((await disable(user.session, wrongTotp(user.secret))).statusCode).toBe(401);
    const second = await newOrganization(user.session, "Second shop");
    for (let i = 0; i < 5; i++) expect((await disable(second, wrongTotp(user.secret))).statusCode).toBe(401);
    // A third organization starts no new count either.
    const elsewhere = await newOrganization(second, "Third shop");
    const blocked = await disable(elsewhere, totpCode(user.secret, t.clock.now()));
    expect(blocked.statusCode).toBe(429);
    expect(json(blocked)).toMatchObject({ code: "TOO_MANY_LOGIN_ATTEMPTS", error: expect.stringContaining("use a recovery code") });
    expect((await call(t, "POST", "/api/auth/2fa/recovery-codes", { session: elsewhere, body: { token: totpCode(user.secret, t.clock.now()) } })).statusCode).toBe(429);
    const [locked] = await t.deps.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(locked!.totpEnabled).toBe(true);
    // The lock is on codes, not on the user: a recovery code turns 2FA off.
    expect((await disable(elsewhere, user.recoveryCodes[0]!)).statusCode).toBe(200);
  });

  it("needs a session", async () => {
    expect((await call(t, "POST", "/api/auth/2fa/disable", { body: { token: "123456" } })).statusCode).toBe(401);
    expect((await call(t, "POST", "/api/auth/2fa/recovery-codes", { body: { token: "123456" } })).statusCode).toBe(401);
  });
});

describe("setup keeps its pending secret", () => {
  it("answers the same secret on every visit until renewed; a renewed secret voids the old one", async () => {
    const user = await registerUser(t);
    const first = json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session }));
    const second = json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session }));
    expect(second.secret).toBe(first.secret);
    expect(second.otpauth_url).toBe(first.otpauth_url);
    expect((await auditActions(t, user.userId)).filter((a) => a.action === "two_factor.setup")).toHaveLength(1);
    const renewed = await call(t, "POST", "/api/auth/2fa/setup", { session: user.session });
    expect(renewed.statusCode).toBe(200);
    const fresh = json(renewed).secret as string;
    expect(fresh).not.toBe(first.secret);
    expect(json(await call(t, "GET", "/api/auth/2fa/setup", { session: user.session })).secret).toBe(fresh);
    const stale = await call(t, "POST", "/api/auth/2fa/confirm", { session: user.session, body: { secret: first.secret, token: totpCode(first.secret, t.clock.now()) } });
    expect(stale.statusCode).toBe(400);
    const ok = await call(t, "POST", "/api/auth/2fa/confirm", { session: user.session, body: { secret: fresh, token: totpCode(fresh, t.clock.now()) } });
    expect(ok.statusCode).toBe(200);
    // Once on, renewing is refused.
    const onAlready = await call(t, "POST", "/api/auth/2fa/setup", { session: sessionOf(ok) });
    expect(onAlready.statusCode).toBe(400);
    expect(json(onAlready).error).toBe("2FA already enabled");
  });
});
