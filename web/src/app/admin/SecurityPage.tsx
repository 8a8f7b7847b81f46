import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { RecoveryCodesReply, TwoFactorSetupReply } from "../../shared/api-types";
import { formValues, useAction, useApi } from "./hooks";
import { Failure, Field, Message } from "./ui";

const code = (v: Record<string, string>) => (v.code ?? "").trim();

/**
 * 2FA set-up (SPEC "User authentication") and recovery (docs/identity.md "Recovery codes"): the QR
 * code comes from the setup answer (qrCode, a PNG data URL), which keeps the same key until it is
 * confirmed or replaced on purpose; the recovery codes are shown once, right after turning 2FA on
 * or renewing them.
 */
export function SecurityPage() {
  const { data, error, reload } = useApi<TwoFactorSetupReply>("/api/auth/2fa/setup");
  const action = useAction();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [fresh, setFresh] = useState<TwoFactorSetupReply | null>(null);
  const setup = fresh ?? data;
  const showCodes = (r: RecoveryCodesReply) => (setCodes(r.recoveryCodes), reload(), "");
  function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(() => api<RecoveryCodesReply>("/api/auth/2fa/confirm", { body: { secret: setup?.secret, token: code(v).replace(/\s/g, "") } }), showCodes);
  }
  function renewKey() {
    void action.run(() => api<TwoFactorSetupReply>("/api/auth/2fa/setup", { method: "POST" }), (r) => (setFresh(r), "A new key is ready: scan it again."));
  }
  function renewCodes(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(() => api<RecoveryCodesReply>("/api/auth/2fa/recovery-codes", { body: { token: code(v).replace(/\s/g, "") } }), showCodes);
  }
  function turnOff(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(() => api("/api/auth/2fa/disable", { body: { token: code(v) } }), () => (setCodes(null), setFresh(null), reload(), "Two-factor authentication is off."));
  }
  return (
    <>
      <h1>Two-factor authentication</h1>
      <Failure error={error} />
      {action.message?.text && <Message message={action.message} />}
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      {!codes && setup?.enabled && (
        <>
          <p className="notice" data-testid="2fa-enabled">
            Two-factor authentication is on for your account. {setup.recoveryCodesLeft ?? 0} of 10 recovery codes left.
          </p>
          <form className="card stack" onSubmit={renewCodes} style={{ maxWidth: "32rem" }} aria-label="New recovery codes">
            <h2>New recovery codes</h2>
            <p>Makes ten new codes; the old ones stop working.</p>
            <Field id="renew-code" name="code" label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,7}" />
            <button type="submit" disabled={action.busy}>Make new codes</button>
          </form>
          <form className="card stack" onSubmit={turnOff} style={{ maxWidth: "32rem", marginTop: "1rem" }} aria-label="Turn off two-factor authentication">
            <h2>Turn off</h2>
            <Field id="off-code" name="code" label="Code from the app, or a recovery code" autoComplete="off" required maxLength={20} />
            <button type="submit" disabled={action.busy}>Turn off two-factor authentication</button>
          </form>
        </>
      )}
      {setup && !setup.enabled && (
        <form className="card stack" onSubmit={confirm} style={{ maxWidth: "32rem" }}>
          <p>Scan the code with an authenticator app, or type the key, then enter the 6-digit code it shows.</p>
          {setup.qrCode && <img src={setup.qrCode} alt="QR code for your authenticator app" width={200} height={200} />}
          <p>
            Key: <code data-testid="totp-secret">{setup.secret}</code>
          </p>
          <Field id="code" label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,7}" />
          <button type="submit" disabled={action.busy}>Turn on</button>
          <button type="button" className="secondary" onClick={renewKey} disabled={action.busy}>Use a new key instead</button>
        </form>
      )}
    </>
  );
}

/** The ten codes, this once: a list, a download, and a button to leave them. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const file = `data:text/plain;charset=utf-8,${encodeURIComponent(`Recovery codes (each works once)\n\n${codes.join("\n")}\n`)}`;
  return (
    <section className="card stack" aria-label="Recovery codes" style={{ maxWidth: "32rem" }}>
      <p className="notice" data-testid="2fa-enabled">Two-factor authentication is on. Save these recovery codes now: they are shown only this once.</p>
      <p>If you lose your authenticator app, each code signs you in once instead of a code from the app.</p>
      <ul data-testid="recovery-codes" style={{ columns: 2, fontFamily: "monospace" }}>
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <p className="actions">
        <a className="button secondary" href={file} download="recovery-codes.txt">Download codes</a>
        <button type="button" onClick={onDone}>I saved my codes</button>
      </p>
    </section>
  );
}
