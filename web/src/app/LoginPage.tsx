import { useEffect, useRef, useState, type FormEvent } from "react";
import type { LoginReply, MagicLinkReply, SocialProvidersReply } from "../shared/api-types";
import { api, messageOf } from "../shared/api";

/** The `/login?error=<code>` codes of the identity redirects (SPEC "User authentication", docs/identity.md). */
const ERRORS: Record<string, string> = {
  invalid_token: "That sign-in link is not valid. Request a new one.",
  expired_token: "That sign-in link has expired. Request a new one.",
  no_org: "Your account has no organization yet.",
  social_not_configured: "That sign-in provider is not configured on this service.",
  invalid_state: "The sign-in attempt could not be verified. Please try again.",
  social_failed: "The sign-in provider did not complete the sign-in. Please try again.",
  email_required: "The sign-in provider did not share a verified email address.",
  account_exists: "An account with this email exists: sign in with your password, then link the provider.",
  registration_disabled: "New accounts cannot be created right now.",
  maintenance: "The service is under maintenance. Please try again later.",
};

type Mode = "login" | "register" | "magic";

function Field({ id, label, ...props }: { id: string; label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <input id={id} name={id} required {...props} />
    </div>
  );
}

export function LoginPage({ search }: { search: URLSearchParams }) {
  const [mode, setMode] = useState<Mode>("login");
  const [pending, setPending] = useState<string | null>(search.get("step") === "2fa" ? search.get("userId") : null);
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<string | null>(() => {
    const code = search.get("error");
    return code ? (ERRORS[code] ?? `Sign-in failed (${code}).`) : null;
  });
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [social, setSocial] = useState<SocialProvidersReply>({ social_a: false, social_b: false });
  useEffect(() => {
    api<SocialProvidersReply>("/api/auth/social-providers").then(setSocial, () => undefined);
  }, []);
  const alertRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) alertRef.current?.focus();
  }, [error]);

  const values = (event: FormEvent) => Object.fromEntries(new FormData(event.target as HTMLFormElement)) as Record<string, string>;

  async function run(event: FormEvent, action: (v: Record<string, string>) => Promise<void>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await action(values(event));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }

  const login = (e: FormEvent) =>
    run(e, async (v) => {
      const r = await api<LoginReply>("/api/admin/auth", { body: { email: v.email, password: v.password } });
      if (r.requires2FA && r.userId) {
        setPending(r.userId);
        history.replaceState(null, "", `/login?step=2fa&userId=${encodeURIComponent(r.userId)}`);
      } else location.assign("/admin");
    });
  const register = (e: FormEvent) =>
    run(e, async (v) => {
      await api("/api/auth/register", { body: { name: v.name, email: v.email, password: v.password, orgName: v.orgName } });
      location.assign("/admin");
    });
  const magic = (e: FormEvent) =>
    run(e, async (v) => {
      const r = await api<MagicLinkReply>("/api/auth/magic-link", { body: { email: v.email } });
      setNotice(r.message ?? "If the address is registered, a sign-in link is on its way.");
    });
  const verify = (e: FormEvent) =>
    run(e, async (v) => {
      await api("/api/auth/2fa/verify", { body: { userId: pending, token: recovery ? v.code.trim() : v.code.replace(/\s/g, "") } });
      location.assign("/admin");
    });

  const alerts = (
    <>
      <div ref={alertRef} tabIndex={-1} role="alert" className={error ? "error" : ""} data-testid="login-error">{error ?? ""}</div>
      {notice && <p className="notice" role="status">{notice}</p>}
    </>
  );

  if (pending)
    return (
      <main className="narrow">
        <form className="card stack" onSubmit={verify}>
          <h1>Two-factor authentication</h1>
          <p>{recovery ? "Enter one of the recovery codes you saved when you turned on two-factor authentication. Each code works once." : "Enter the 6-digit code from your authenticator app."}</p>
          {alerts}
          {recovery ? (
            <Field key="recovery" id="code" label="Recovery code" autoComplete="off" autoCapitalize="none" spellCheck={false} pattern="[A-Za-z0-9 -]{12,20}" maxLength={20} autoFocus />
          ) : (
            <Field key="totp" id="code" label="Authentication code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} autoFocus />
          )}
          <button type="submit" className="wide" disabled={busy}>Verify</button>
          <button type="button" className="link" onClick={() => setRecovery(!recovery)}>{recovery ? "Use a code from the app" : "Lost your device? Use a recovery code"}</button>
          <button type="button" className="link" onClick={() => (setPending(null), history.replaceState(null, "", "/login"))}>Use another account</button>
        </form>
      </main>
    );

  return (
    <main className="narrow">
      <div className="card stack">
        <h1>{mode === "register" ? "Create your account" : "Sign in"}</h1>
        <div className="tabs" role="group" aria-label="Sign-in method">
          <button type="button" className={mode === "login" ? "" : "secondary"} aria-pressed={mode === "login"} onClick={() => setMode("login")}>Password</button>
          <button type="button" className={mode === "magic" ? "" : "secondary"} aria-pressed={mode === "magic"} onClick={() => setMode("magic")}>Email link</button>
          <button type="button" className={mode === "register" ? "" : "secondary"} aria-pressed={mode === "register"} onClick={() => setMode("register")}>Register</button>
        </div>
        {alerts}
        {mode === "login" && (
          <form className="stack" onSubmit={login}>
            <Field id="email" label="Email" type="email" autoComplete="username" />
            <Field id="password" label="Password" type="password" autoComplete="current-password" />
            <button type="submit" className="wide" disabled={busy}>Sign in</button>
          </form>
        )}
        {mode === "magic" && (
          <form className="stack" onSubmit={magic}>
            <Field id="email" label="Email" type="email" autoComplete="email" />
            <button type="submit" className="wide" disabled={busy}>Email me a sign-in link</button>
          </form>
        )}
        {mode === "register" && (
          <form className="stack" onSubmit={register}>
            <Field id="name" label="Your name" autoComplete="name" />
            <Field id="email" label="Email" type="email" autoComplete="email" />
            <Field id="password" label="Password (at least 12 characters)" type="password" autoComplete="new-password" minLength={12} />
            <Field id="orgName" label="Organization name" autoComplete="organization" />
            <button type="submit" className="wide" disabled={busy}>Create account</button>
          </form>
        )}
        {(social.social_a || social.social_b) && (
          <div className="actions" aria-label="Sign in with another provider" role="group">
            {social.social_a && <a className="button secondary" href="/api/auth/social_a">Continue with provider A</a>}
            {social.social_b && <a className="button secondary" href="/api/auth/social_b">Continue with provider B</a>}
          </div>
        )}
      </div>
    </main>
  );
}
