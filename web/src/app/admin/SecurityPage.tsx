import type { FormEvent } from "react";
import { api } from "../../shared/api";
import type { TwoFactorSetupReply } from "../../shared/api-types";
import { formValues, useAction, useApi } from "./hooks";
import { Failure, Field, Message } from "./ui";

/** 2FA set-up (SPEC "User authentication"): the QR code comes from the setup answer (qrCode, a PNG data URL). */
export function SecurityPage() {
  const { data, error, reload } = useApi<TwoFactorSetupReply>("/api/auth/2fa/setup");
  const action = useAction();
  function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(() => api("/api/auth/2fa/confirm", { body: { secret: data?.secret, token: v.code.replace(/\s/g, "") } }), () => (reload(), "Two-factor authentication is on."));
  }
  return (
    <>
      <h1>Two-factor authentication</h1>
      <Failure error={error} />
      <Message message={action.message} />
      {data?.enabled && <p className="notice" data-testid="2fa-enabled">Two-factor authentication is on for your account.</p>}
      {data && !data.enabled && (
        <form className="card stack" onSubmit={confirm} style={{ maxWidth: "32rem" }}>
          <p>Scan the code with an authenticator app, or type the key, then enter the 6-digit code it shows.</p>
          {data.qrCode && <img src={data.qrCode} alt="QR code for your authenticator app" width={200} height={200} />}
          <p>
            Key: <code data-testid="totp-secret">{data.secret}</code>
          </p>
          <Field id="code" label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,7}" />
          <button type="submit" disabled={action.busy}>Turn on</button>
        </form>
      )}
    </>
  );
}
