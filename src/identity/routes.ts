import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config/index.js";
import { Type } from "typebox";
import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { loginWithPassword } from "./login.js";
import { MAGIC_LINK_MESSAGE, requestMagicLink, verifyMagicLink } from "./magic-link.js";
import { MAGIC_LINK_MIN_RESPONSE_MS, PENDING_LOGIN_COOKIE, SESSION_COOKIE, SOCIAL_STATE_COOKIE, SOCIAL_STATE_MS } from "./policy.js";
import { assertRegistrationOpen, registerUser } from "./register.js";
import { requireSession } from "./session-caller.js";
import {
  SocialProvidersReply,
  AuthStateReply,
  LoginBody,
  LoginReply,
  MagicLinkBody,
  MagicLinkReply,
  MagicLinkVerifyQuery,
  RegisterBody,
  SuccessReply,
  SwitchBrandBody,
  SwitchOrgBody,
  SwitchReply,
  RecoveryCodesReply,
  TwoFactorCodeBody,
  TwoFactorConfirmBody,
  TwoFactorSetupReply,
  TwoFactorVerifyBody,
} from "./schemas.js";
import { pendingCookieOptions, sessionCookieOptions, type LoginOutcome } from "./sessions.js";
import { finishSocialSignIn, SOCIAL_PROVIDERS, startSocialSignIn } from "./social.js";
import { describeSession, logout, switchBrand, switchOrganization } from "./tenant.js";
import { RedisLoginThrottle } from "./throttle.js";
import { confirmTwoFactor, disableTwoFactor, regenerateRecoveryCodes, setupTwoFactor, verifyTwoFactor } from "./two-factor.js";

const AUTH = ["Authentication"];
const ADMIN_AUTH = ["Administration: authentication"];

/** Where the login page continues a pending (2FA) login. */
const pendingLoginLocation = (userId: string) => `/login?step=2fa&userId=${encodeURIComponent(userId)}`;

export function registerIdentityRoutes(app: App, deps: Deps): void {
  const { config } = deps;
  // Mail goes out from the job runner (src/jobs, started by app.ts); a queued magic link is sent at once.
  const mail = { kick: () => app.jobs.trigger("mail") };
  const throttle = deps.redis ? new RedisLoginThrottle(deps.redis, deps.log) : null;

  registerLoginRoutes(app, deps, throttle);
  registerSessionRoutes(app, deps);
  registerTwoFactorRoutes(app, deps, mail);
  registerMagicLinkRoutes(app, deps, mail);
  registerSocialRoutes(app, deps);
}

/** Sets the session cookie of a finished login, or the pending-login cookie of one that needs its 2FA code. */
function setSession(reply: FastifyReply, config: Config, outcome: LoginOutcome): void {
  if (outcome.kind === "session") {
    reply.setCookie(SESSION_COOKIE, outcome.sessionId, sessionCookieOptions(config));
    reply.clearCookie(PENDING_LOGIN_COOKIE, { path: "/" });
  } else {
    reply.setCookie(PENDING_LOGIN_COOKIE, outcome.pendingId, pendingCookieOptions(config));
  }
}

/** The session (401 without one) and the verb context acting as its user. */
function sessionRequest(deps: Deps, request: FastifyRequest, extra?: Record<string, unknown>) {
  const session = requireSession(request, extra);
  return { session, ctx: callerCtx(deps, request) };
}

/** Registration and password login. */
function registerLoginRoutes(app: App, deps: Deps, throttle: RedisLoginThrottle | null): void {
  app.post(
    "/api/auth/register",
    {
      schema: { tags: AUTH, summary: "Register a user with an organization and a default brand; logs in", body: RegisterBody, response: { 200: SuccessReply, ...errorResponses(400, 403, 503) } },
      config: { missingFields: { fields: ["name", "email", "password", "orgName"], message: "Missing required fields" } },
      // REGISTRATION_MODE answers before the body is looked at.
      preValidation: async (request) => assertRegistrationOpen(ctxOf(deps, request)),
    },
    async (request, reply) => {
      const session = await registerUser({ ctx: ctxOf(deps, request), input: request.body });
      setSession(reply, deps.config, session);
      return { success: true };
    },
  );

  app.post(
    "/api/admin/auth",
    {
      schema: { tags: ADMIN_AUTH, summary: "Password login (answers requires2FA for 2FA users)", security: [], body: LoginBody, response: { 200: LoginReply, ...errorResponses(400, 401, 403, 429) } },
      config: { missingFields: { fields: ["email", "password"], message: "Missing required fields" } },
    },
    async (request, reply) => {
      const outcome = await loginWithPassword({ ctx: ctxOf(deps, request), input: request.body, throttle });
      setSession(reply, deps.config, outcome);
      if (outcome.kind === "pending") return { success: true, requires2FA: true, userId: outcome.userId };
      return { success: true, session: { userId: outcome.userId, email: outcome.email, name: outcome.name, role: outcome.role } };
    },
  );
}

/** The current session: its state, logout, and switching organization or brand. */
function registerSessionRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/auth",
    { schema: { tags: ADMIN_AUTH, summary: "The current session, organizations and brands", response: { 200: AuthStateReply, ...errorResponses(401) } } },
    async (request) => describeSession(sessionRequest(deps, request, { authenticated: false })),
  );

  app.delete(
    "/api/admin/auth",
    { schema: { tags: ADMIN_AUTH, summary: "Log out", response: { 200: SuccessReply, ...errorResponses(401, 403) } } },
    async (request, reply) => {
      await logout(sessionRequest(deps, request));
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return { success: true };
    },
  );

  app.post(
    "/api/admin/auth/switch-org",
    { schema: { tags: ADMIN_AUTH, summary: "Switch to another organization of the user (new session id)", body: SwitchOrgBody, response: { 200: SwitchReply, ...errorResponses(400, 401, 403) } } },
    async (request, reply) => {
      const issued = await switchOrganization({ ...sessionRequest(deps, request), organizationId: request.body.organizationId });
      setSession(reply, deps.config, issued);
      return { success: true, organizationId: issued.organizationId, brandId: issued.brandId };
    },
  );

  app.post(
    "/api/admin/auth/switch-brand",
    { schema: { tags: ADMIN_AUTH, summary: "Switch to another brand of the current organization (new session id)", body: SwitchBrandBody, response: { 200: SwitchReply, ...errorResponses(400, 401, 403) } } },
    async (request, reply) => {
      const issued = await switchBrand({ ...sessionRequest(deps, request), brandId: request.body.brandId });
      setSession(reply, deps.config, issued);
      return { success: true, organizationId: issued.organizationId, brandId: issued.brandId };
    },
  );
}

/** TOTP: setup and confirm with a session, verify to finish a pending login. */
function registerTwoFactorRoutes(app: App, deps: Deps, mail: { kick(): unknown }): void {
  // A check that locks the user's codes has queued a mail to the user: sent at once.
  const kickMail = () => mail.kick();
  app.get(
    "/api/auth/2fa/setup",
    { schema: { tags: AUTH, summary: "Start TOTP setup: secret and otpauth_url (or enabled: true)", response: { 200: TwoFactorSetupReply, ...errorResponses(401) } } },
    async (request) => setupTwoFactor(sessionRequest(deps, request)),
  );

  app.post(
    "/api/auth/2fa/setup",
    { schema: { tags: AUTH, summary: "Replace the pending TOTP secret with a new one (not in SPEC; GET keeps the pending one)", response: { 200: TwoFactorSetupReply, ...errorResponses(400, 401, 403) } } },
    async (request) => setupTwoFactor({ ...sessionRequest(deps, request), renew: true }),
  );

  app.post(
    "/api/auth/2fa/confirm",
    { schema: { tags: AUTH, summary: "Enable TOTP with a valid code (new session id); answers the ten recovery codes once", body: TwoFactorConfirmBody, response: { 200: RecoveryCodesReply, ...errorResponses(400, 401, 403) } } },
    async (request, reply) => {
      const issued = await confirmTwoFactor({ ...sessionRequest(deps, request), input: request.body });
      setSession(reply, deps.config, issued);
      return { success: true, recoveryCodes: issued.recoveryCodes };
    },
  );

  app.post(
    "/api/auth/2fa/recovery-codes",
    { schema: { tags: AUTH, summary: "Ten new recovery codes for a current TOTP code (not in SPEC; the old ones stop working)", body: TwoFactorCodeBody, response: { 200: RecoveryCodesReply, ...errorResponses(400, 401, 403, 429) } } },
    async (request) => regenerateRecoveryCodes({ ...sessionRequest(deps, request), input: request.body, kickMail }),
  );

  app.post(
    "/api/auth/2fa/disable",
    { schema: { tags: AUTH, summary: "Turn 2FA off with a current TOTP code or a recovery code (not in SPEC)", body: TwoFactorCodeBody, response: { 200: SuccessReply, ...errorResponses(400, 401, 403, 429) } } },
    async (request) => disableTwoFactor({ ...sessionRequest(deps, request), input: request.body, kickMail }),
  );

  app.post(
    "/api/auth/2fa/verify",
    {
      schema: { tags: AUTH, summary: "Complete a pending login with a TOTP code", security: [{ pendingSignIn: [] }], body: TwoFactorVerifyBody, response: { 200: SuccessReply, ...errorResponses(400, 401, 409, 429) } },
      config: { missingFields: { fields: ["userId", "token"], message: "Missing fields" } },
    },
    async (request, reply) => {
      const issued = await verifyTwoFactor({ ctx: ctxOf(deps, request), pendingId: request.cookies[PENDING_LOGIN_COOKIE], input: request.body ?? {}, kickMail });
      setSession(reply, deps.config, issued);
      return { success: true };
    },
  );
}

function registerMagicLinkRoutes(app: App, deps: Deps, mail: { kick(): unknown }): void {
  app.post(
    "/api/auth/magic-link",
    { schema: { tags: AUTH, summary: "Mail a sign-in link (same answer for unknown emails)", body: MagicLinkBody, response: { 200: MagicLinkReply, ...errorResponses(400) } } },
    async (request) => {
      const started = performance.now();
      const { queued } = await requestMagicLink({ ctx: ctxOf(deps, request), email: request.body.email });
      if (queued) void mail.kick();
      // Same timing whether or not the email is registered: answer no sooner than the floor.
      const wait = MAGIC_LINK_MIN_RESPONSE_MS - (performance.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return { success: true, message: MAGIC_LINK_MESSAGE };
    },
  );

  app.get(
    "/api/auth/magic-link/verify",
    {
      // HEAD (link previews, mail scanners) must not consume the token (CONTRACT §23).
      exposeHeadRoute: false,
      schema: { tags: AUTH, summary: "Use a magic link: redirect to /admin or /login?error=<code>", querystring: MagicLinkVerifyQuery, response: { 302: Type.Null() } },
    },
    async (request, reply) => {
      // The token is in this URL: the page redirected to must not receive it as a Referer.
      reply.header("referrer-policy", "no-referrer");
      const result = await verifyMagicLink({ ctx: ctxOf(deps, request), token: request.query.token });
      if (!result.ok) return reply.redirect(`/login?error=${result.error}`, 302);
      setSession(reply, deps.config, result.outcome);
      return reply.redirect(result.outcome.kind === "session" ? "/admin" : pendingLoginLocation(result.outcome.userId), 302);
    },
  );
  app.head("/api/auth/magic-link/verify", { schema: { hide: true } }, async (_request, reply) => reply.code(200).header("cache-control", "no-store").send());
}

function registerSocialRoutes(app: App, deps: Deps): void {
  const { config } = deps;
  app.get(
    "/api/auth/social-providers",
    { schema: { tags: AUTH, summary: "Which social sign-in providers are configured (for the login page's buttons; not in SPEC)", response: { 200: SocialProvidersReply } } },
    async () => ({ social_a: config.social.social_a !== null, social_b: config.social.social_b !== null }),
  );

  const stateCookieOptions = { httpOnly: true, sameSite: "lax" as const, secure: config.publicBaseUrl.startsWith("https:"), path: "/api/auth", maxAge: SOCIAL_STATE_MS / 1000 };
  for (const provider of SOCIAL_PROVIDERS) {
    app.get(
      `/api/auth/${provider}`,
      { schema: { tags: AUTH, summary: `Sign in with ${provider}: redirect to its consent screen`, response: { 302: Type.Null() } } },
      async (request, reply) => {
        const started = await startSocialSignIn({ ctx: ctxOf(deps, request), provider });
        if (!started.ok) return reply.redirect(`/login?error=${started.error}`, 302);
        reply.setCookie(SOCIAL_STATE_COOKIE, started.stateCookie, stateCookieOptions);
        return reply.redirect(started.location, 302);
      },
    );
    app.get(
      `/api/auth/${provider}/callback`,
      { schema: { tags: AUTH, summary: `${provider} callback: redirect to /admin or /login?error=<code>`, response: { 302: Type.Null() } } },
      async (request, reply) => {
        const query = new URLSearchParams(request.url.split("?")[1] ?? "");
        const result = await finishSocialSignIn({ ctx: ctxOf(deps, request), provider, query, stateCookie: request.cookies[SOCIAL_STATE_COOKIE] });
        reply.clearCookie(SOCIAL_STATE_COOKIE, { path: "/api/auth" });
        if (!result.ok) return reply.redirect(`/login?error=${result.error}`, 302);
        setSession(reply, deps.config, result.outcome);
        return reply.redirect(result.outcome.kind === "session" ? "/admin" : pendingLoginLocation(result.outcome.userId), 302);
      },
    );
  }
}
