// Magic links (SPEC rules 2-3, CONTRACT §23): same answer for unknown emails, the mail received by
// a real SMTP server, single use (also under concurrency), expiry, voiding, HEAD, the mail limit,
// the password lock not applying, 2FA users ending pending, every redirect of verify.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { mailOutbox, memberships, users } from "../db/schema/index.js";
import { auditActions, call, cookieOf, PASSWORD, registerUser, registerWithTwoFactor, sessionOf, uniqueEmail } from "../../test/support/identity.js";
import { startSmtpServer, type ReceivedMail, type TestSmtp } from "../../test/support/smtp.js";
import { totpCode } from "./totp.js";

let smtp: TestSmtp;
let t: TestApp;
const mailFor = (email: string, count?: number) => smtp.mailFor(email, count);

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: "login@checkout.test" } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

/** The link in a raw mail (quoted-printable soft breaks undone). */
function linkIn(mail: ReceivedMail): string {
  const text = mail.data.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = text.match(/http:\/\/checkout\.test(\/api\/auth\/magic-link\/verify\?token=[A-Za-z0-9_-]+)/);
  if (!match) throw new Error(`no link in mail:\n${text}`);
  return match[1];
}

const request = (email: string) => call(t, "POST", "/api/auth/magic-link", { body: { email } });

describe("POST /api/auth/magic-link", () => {
  it("answers the same for registered and unknown emails", async () => {
    const user = await registerUser(t);
    const known = await request(user.email);
    const unknown = await request(uniqueEmail("nobody"));
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
    expect(json(known)).toMatchObject({ success: true, message: expect.any(String) });
  });

  it("mails a link through SMTP that logs in once, and keeps the mail in the outbox", async () => {
    const user = await registerUser(t);
    await request(user.email);
    const [mail] = await mailFor(user.email);
    const link = linkIn(mail);
    const head = await t.app.inject({ method: "HEAD", url: link });
    expect(head.statusCode).toBe(200);
    const used = await call(t, "GET", link);
    expect(used.statusCode).toBe(302);
    expect(used.headers.location).toBe("/admin");
    // Issue 16 hole 5: a response that sets a session is never cached, and the token in the URL goes to no Referer.
    expect(used.headers["cache-control"]).toBe("no-store");
    expect(used.headers["referrer-policy"]).toBe("no-referrer");
    expect(json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(used) })).session.userId).toBe(user.userId);
    const again = await call(t, "GET", link);
    expect(again.headers.location).toBe("/login?error=invalid_token");
    expect(again.headers["referrer-policy"]).toBe("no-referrer");
    expect(cookieOf(again, "admin_session")).toBeUndefined();
    // The server has the mail slightly before the sender records it as sent.
    let rows: { status: string }[] = [];
    for (let i = 0; i < 50 && rows[0]?.status !== "sent"; i++) {
      rows = await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email));
      if (rows[0]?.status !== "sent") await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(rows).toMatchObject([{ status: "sent", attempts: 1 }]);
    const actions = (await auditActions(t, user.userId)).map((a) => `${a.action}:${a.success}`);
    expect(actions).toEqual(expect.arrayContaining(["magic_link.request:true", "magic_link.use:true", "magic_link.use:false", "user.login:true"]));
  });

  it("lets exactly one of two concurrent verifications win", async () => {
    const user = await registerUser(t);
    await request(user.email);
    const link = linkIn((await mailFor(user.email))[0]);
    const results = await Promise.all([call(t, "GET", link), call(t, "GET", link), call(t, "GET", link)]);
    expect(results.map((r) => r.headers.location).sort()).toEqual(["/admin", "/login?error=invalid_token", "/login?error=invalid_token"]);
  });

  it("voids older links when a newer one is sent, and sends at most 3 mails per 15 minutes", async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 4; i++) await request(user.email);
    const mails = await mailFor(user.email, 3);
    // A fourth mail would be a fourth outbox row, queued by its request before it answered: no need to wait for its sending.
    expect(await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email))).toHaveLength(3);
    expect(smtp.received.filter((m) => m.to.includes(user.email))).toHaveLength(3);
    const [first, , third] = mails.map(linkIn);
    expect((await call(t, "GET", first)).headers.location).toBe("/login?error=invalid_token");
    expect((await call(t, "GET", third)).headers.location).toBe("/admin");
    t.clock.advance(16 * 60_000);
    await request(user.email);
    expect(await mailFor(user.email, 4)).toHaveLength(4);
  });

  it("redirects an expired link to expired_token after 10 minutes", async () => {
    const user = await registerUser(t);
    await request(user.email);
    const link = linkIn((await mailFor(user.email))[0]);
    t.clock.advance(10 * 60_000 + 1);
    expect((await call(t, "GET", link)).headers.location).toBe("/login?error=expired_token");
  });

  it("redirects a missing or malformed token to invalid_token", async () => {
    for (const url of ["/api/auth/magic-link/verify", "/api/auth/magic-link/verify?token=", "/api/auth/magic-link/verify?token=%3Cscript%3E", `/api/auth/magic-link/verify?token=${"a".repeat(43)}`]) {
      const res = await call(t, "GET", url);
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location, url).toBe("/login?error=invalid_token");
    }
  });

  it("redirects a user without organizations to no_org", async () => {
    const user = await registerUser(t);
    await t.deps.database.db.delete(memberships).where(eq(memberships.userId, user.userId));
    await request(user.email);
    const link = linkIn((await mailFor(user.email))[0]);
    expect((await call(t, "GET", link)).headers.location).toBe("/login?error=no_org");
  });

  it("works while password login is locked", async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 10; i++) await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: `wrong password ${i}` } });
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(429);
    await request(user.email);
    const link = linkIn((await mailFor(user.email))[0]);
    expect((await call(t, "GET", link)).headers.location).toBe("/admin");
  });

  it("leaves a 2FA user pending, not logged in", async () => {
    const user = await registerWithTwoFactor(t);
    await request(user.email);
    const link = linkIn((await mailFor(user.email))[0]);
    const res = await call(t, "GET", link);
    expect(res.headers.location).toBe(`/login?step=2fa&userId=${user.userId}`);
    expect(cookieOf(res, "admin_session")).toBeUndefined();
    const pending = cookieOf(res, "admin_pending_login")!.value;
    const verified = await call(t, "POST", "/api/auth/2fa/verify", { pending, body: { userId: user.userId, token: totpCode(user.secret, t.clock.now()) } });
    expect(verified.statusCode).toBe(200);
    const [row] = await t.deps.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(row.totpEnabled).toBe(true);
  });
});

describe("without SMTP_URL", () => {
  async function requestLink(env: Record<string, string>) {
    const plain = await buildTestApp({ env });
    try {
      const user = await registerUser(plain);
      await call(plain, "POST", "/api/auth/magic-link", { body: { email: user.email } });
      let rows: { status: string }[] = [];
      for (let i = 0; i < 50 && rows[0]?.status !== "logged"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        rows = await plain.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, user.email));
      }
      expect(rows).toMatchObject([{ status: "logged" }]);
      return plain.logs.join("");
    } finally {
      await plain.close();
    }
  }

  it("keeps the mail in the outbox and never writes its body or link to the log (issue 21)", async () => {
    const log = await requestLink({});
    expect(log).toContain("mail not sent: SMTP_URL is not set");
    expect(log).not.toContain("magic-link/verify");
    expect(log).not.toContain("token=");
  });

  it("writes the whole mail, link included, to the log with MAIL_TRANSPORT=log (development)", async () => {
    expect(await requestLink({ MAIL_TRANSPORT: "log" })).toContain("/api/auth/magic-link/verify?token=");
  });
});
