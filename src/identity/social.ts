import * as oauth from "oauth4webapi";
import type { SocialProviderConfig } from "../config/index.js";
import type { Ctx } from "../ctx.js";
import { recordAudit } from "../audit/record.js";
import { withTransaction } from "../db/transaction.js";
import { decrypt, safeEqual, seal } from "../lib/crypto.js";
import { AppError } from "../lib/errors.js";
import { completeFirstFactor } from "./complete-login.js";
import { SOCIAL_STATE_MS } from "./policy.js";
import { provisionAccount } from "./provision.js";
import { isEmail, normalizeEmail } from "./register.js";
import type { LoginOutcome } from "./sessions.js";
import { findSocialAccount, findUserByEmail, findUserById, insertSocialAccount } from "./store.js";

export const SOCIAL_PROVIDERS = ["social_a", "social_b"] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

/** What the state cookie holds, sealed with ENCRYPTION_KEY so it can be neither read nor forged. */
interface SocialState {
  p: SocialProvider;
  s: string;
  v: string;
  e: number;
}

export type SocialStart = { ok: true; location: string; stateCookie: string } | { ok: false; error: "social_not_configured" };

export function callbackUrl(ctx: Pick<Ctx, "config">, provider: SocialProvider): string {
  return `${ctx.config.publicBaseUrl}/api/auth/${provider}/callback`;
}

function providerConfig(ctx: Pick<Ctx, "config">, provider: SocialProvider): SocialProviderConfig | null {
  return ctx.config.social[provider];
}

function endpoints(cfg: SocialProviderConfig) {
  const as: oauth.AuthorizationServer = {
    issuer: new URL(cfg.authorizationUrl).origin,
    authorization_endpoint: cfg.authorizationUrl,
    token_endpoint: cfg.tokenUrl,
    userinfo_endpoint: cfg.userinfoUrl,
  };
  const client: oauth.Client = { client_id: cfg.clientId };
  // Plain-http endpoints are only for local test servers; configured production ones are https.
  const insecure = [cfg.authorizationUrl, cfg.tokenUrl, cfg.userinfoUrl].some((u) => u.startsWith("http:"));
  return { as, client, insecure };
}

/** `GET /api/auth/social_x`: the consent-screen redirect with state and PKCE (S256). */
export async function startSocialSignIn({ ctx, provider }: { ctx: Ctx; provider: SocialProvider }): Promise<SocialStart> {
  const cfg = providerConfig(ctx, provider);
  if (!cfg) return { ok: false, error: "social_not_configured" };
  const state = oauth.generateRandomState();
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(cfg.authorizationUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", cfg.clientId);
  url.searchParams.set("redirect_uri", callbackUrl(ctx, provider));
  url.searchParams.set("scope", "openid email profile");
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  const sealed: SocialState = { p: provider, s: state, v: verifier, e: ctx.clock.now() + SOCIAL_STATE_MS };
  return { ok: true, location: url.toString(), stateCookie: seal(JSON.stringify(sealed), ctx.config.encryptionKey) };
}

export interface SocialProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export type SocialCallbackError = "invalid_state" | "social_not_configured" | "social_failed" | "email_required" | "account_exists" | "no_org" | "registration_disabled" | "maintenance";
export type SocialResult = { ok: true; outcome: LoginOutcome } | { ok: false; error: SocialCallbackError };

function readState(ctx: Ctx, cookie: string | undefined): SocialState | null {
  if (!cookie) return null;
  try {
    const state = JSON.parse(decrypt(cookie, ctx.config.encryptionKeyring)) as SocialState;
    return typeof state.s === "string" && typeof state.v === "string" ? state : null;
  } catch {
    return null;
  }
}

/** Code for tokens (PKCE verifier from the state cookie), then the userinfo profile. */
async function fetchProfile(ctx: Ctx, cfg: SocialProviderConfig, provider: SocialProvider, query: URLSearchParams, state: SocialState): Promise<SocialProfile> {
  const { as, client, insecure } = endpoints(cfg);
  const params = oauth.validateAuthResponse(as, client, query, state.s);
  const signal = AbortSignal.timeout(10_000);
  const raw = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(cfg.clientSecret), params, callbackUrl(ctx, provider), state.v, {
    [oauth.allowInsecureRequests]: insecure,
    signal,
  });
  // These providers are configured as plain OAuth 2.0 (CONTRACT: identity comes from userinfo).
  // Their issuer is not configured, so an id_token they add cannot be validated: it is dropped
  // and never used.
  const body = (await raw.json().catch(() => null)) as Record<string, unknown> | null;
  if (body && typeof body === "object") delete body.id_token;
  const response = new Response(JSON.stringify(body), { status: raw.status, headers: { "content-type": "application/json" } });
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);

  const info = await fetch(cfg.userinfoUrl, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" }, signal });
  if (!info.ok) throw new Error(`userinfo answered ${info.status}`);
  const profile = (await info.json()) as Record<string, unknown>;
  const subject = profile.sub ?? profile.id;
  if ((typeof subject !== "string" && typeof subject !== "number") || String(subject) === "") throw new Error("userinfo has no sub or id");
  return {
    subject: String(subject),
    email: typeof profile.email === "string" ? profile.email : null,
    // CONTRACT §31: only `email_verified: true` asserts a verified email.
    emailVerified: profile.email_verified === true,
    name: typeof profile.name === "string" ? profile.name : null,
  };
}

/**
 * `GET /api/auth/social_x/callback`: state check (the sealed cookie's state must equal the
 * query's, same provider, not expired), code exchange, then SPEC rule 4's outcomes.
 */
export async function finishSocialSignIn({ ctx, provider, query, stateCookie }: { ctx: Ctx; provider: SocialProvider; query: URLSearchParams; stateCookie: string | undefined }): Promise<SocialResult> {
  const cfg = providerConfig(ctx, provider);
  if (!cfg) return { ok: false, error: "social_not_configured" };
  const state = readState(ctx, stateCookie);
  const given = query.get("state");
  if (!state || !given || state.p !== provider || state.e <= ctx.clock.now() || !safeEqual(state.s, given)) return { ok: false, error: "invalid_state" };
  let profile: SocialProfile;
  try {
    profile = await fetchProfile(ctx, cfg, provider, query, state);
  } catch (err) {
    ctx.log.warn({ err: err instanceof Error ? err.message : String(err), provider }, "social sign-in failed at the provider");
    return { ok: false, error: "social_failed" };
  }
  return signInWithProfile({ ctx, provider, profile });
}

/**
 * SPEC rule 4 with CONTRACT §23 and §31: a returning social account logs in; an existing user
 * with this email gets the account linked only when the provider asserts the email verified
 * (else `account_exists`); anyone else gets a new account, organization and brand.
 */
export async function signInWithProfile({ ctx, provider, profile }: { ctx: Ctx; provider: SocialProvider; profile: SocialProfile }): Promise<SocialResult> {
  try {
    const outcome = await withTransaction(ctx.db, async (tx) => {
      const linked = await findSocialAccount(tx, provider, profile.subject);
      if (linked) {
        const user = await findUserById(tx, linked.userId);
        if (user) return completeFirstFactor(tx, ctx, user, provider);
      }
      const email = profile.email ? normalizeEmail(profile.email) : "";
      if (!isEmail(email)) return { error: "email_required" as const };
      const existing = await findUserByEmail(tx, email);
      const now = new Date(ctx.clock.now());
      if (existing) {
        if (!profile.emailVerified) return { error: "account_exists" as const };
        await insertSocialAccount(tx, { provider, subject: profile.subject, userId: existing.id, email, createdAt: now });
        await recordAudit(tx, ctx, { action: "social_account.link", resourceType: "user", resourceId: existing.id, actorId: existing.id, success: true, details: { provider } });
        return completeFirstFactor(tx, ctx, existing, provider);
      }
      if (ctx.config.registrationMode === "disabled") return { error: "registration_disabled" as const };
      if (ctx.config.registrationMode === "maintenance") return { error: "maintenance" as const };
      const name = profile.name?.trim() || email.split("@")[0];
      const account = await provisionAccount(tx, ctx, { email, name, passwordHash: null, orgName: `${name}'s organization` });
      await insertSocialAccount(tx, { provider, subject: profile.subject, userId: account.userId, email, createdAt: now });
      const scoped = { actorId: account.userId, organizationId: account.organizationId, brandId: account.brandId };
      await recordAudit(tx, ctx, { action: "user.register", resourceType: "user", resourceId: account.userId, success: true, ...scoped, details: { method: provider, adoptedDefaultOrganization: account.adoptedDefault } });
      await recordAudit(tx, ctx, { action: "social_account.link", resourceType: "user", resourceId: account.userId, success: true, ...scoped, details: { provider } });
      return completeFirstFactor(tx, ctx, { id: account.userId, totpEnabled: false }, provider);
    });
    if ("error" in outcome) {
      await withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "user.login", resourceType: "user", resourceId: null, actorId: null, success: false, details: { method: provider, reason: outcome.error } }));
      return { ok: false, error: outcome.error };
    }
    return { ok: true, outcome };
  } catch (error) {
    if (error instanceof AppError && error.code === "NO_ORGANIZATION") return { ok: false, error: "no_org" };
    throw error;
  }
}
