// Identity decisions in one place (docs/identity.md explains each; CONTRACT §10, §23).

export const SESSION_COOKIE = "admin_session";
export const PENDING_LOGIN_COOKIE = "admin_pending_login";
export const SOCIAL_STATE_COOKIE = "social_oauth";

/** Session ids and magic-link tokens: 32 random bytes (256 bits). */
export const TOKEN_BYTES = 32;

/** The pending-login state between the first factor and the TOTP code. */
export const PENDING_LOGIN_MS = 10 * 60_000;
/** CONTRACT §10: five wrong codes end the pending login. */
export const PENDING_LOGIN_MAX_FAILURES = 5;
/**
 * Issue 31 item 7: ten wrong TOTP codes of one user within an hour, wherever they are sent (the 2FA
 * login step, turning 2FA off, new recovery codes) and over any number of logins and sessions, lock
 * TOTP codes of that user for an hour and mail the user. Recovery codes still work.
 */
export const CODE_FAILURES = 10;
export const CODE_WINDOW_MS = 60 * 60_000;
export const CODE_LOCK_MS = 60 * 60_000;

/** CONTRACT §23: ten failures for one account within 15 minutes lock password login for 30 minutes. */
export const LOCK_FAILURES = 10;
export const LOCK_WINDOW_MS = 15 * 60_000;
export const LOCK_DURATION_MS = 30 * 60_000;
/** Per client address: this many failed password logins within 15 minutes are answered 429. */
export const ADDRESS_FAILURES = 30;
export const ADDRESS_WINDOW_MS = 15 * 60_000;

/** CONTRACT §23: magic links live 10 minutes; at most 3 mails per address per 15 minutes. */
export const MAGIC_LINK_MS = 10 * 60_000;
export const MAGIC_LINK_MAILS = 3;
export const MAGIC_LINK_WINDOW_MS = 15 * 60_000;
/** The magic-link request answers no sooner than this, registered email or not (same timing). */
export const MAGIC_LINK_MIN_RESPONSE_MS = 120;

/** The social sign-in state cookie (state + PKCE verifier). */
export const SOCIAL_STATE_MS = 10 * 60_000;

/** A session's last-seen time is written at most this often (fewer writes; idle end is minutes). */
export const LAST_SEEN_GRANULARITY_MS = 60_000;

export const TOTP_PERIOD_SECONDS = 30;
