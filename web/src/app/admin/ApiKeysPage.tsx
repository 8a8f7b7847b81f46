import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import { date, formValues, useAction, useApi } from "./hooks";
import { ConfirmAction, Failure, Field, Message } from "./ui";

// Issue 15: the brand's API keys and checkout-token signing keys. Secrets are shown once, right after creation.

const SCOPES = ["checkouts:write", "orders:read", "orders:refund", "upsell:write", "events:read", "webhooks:write"] as const;

// Issue 33: every key has a mode: test keys pay in demo only, live keys charge real money.
interface ApiKey { id: string; name: string; prefix: string; scopes: string[]; mode: "test" | "live"; createdAt: number; lastUsedAt: number | null }
interface SigningKey { kid: string; mode: "test" | "live"; createdAt: number; lastUsedAt: number | null }
/** What the page shows once: the new secret, and what it belongs to. */
interface Shown { label: string; secret: string; kid?: string }

export function ApiKeysPage() {
  const keys = useApi<{ apiKeys: ApiKey[] }>("/api/admin/api-keys");
  const signing = useApi<{ signingKeys: SigningKey[] }>("/api/admin/signing-keys");
  const action = useAction();
  const [shown, setShown] = useState<Shown | null>(null);
  const [signingMode, setSigningMode] = useState<"test" | "live">("test");

  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    const scopes = new FormData(form).getAll("scopes").map(String);
    setShown(null);
    void action.run(
      () => api<{ apiKey: ApiKey; secret: string }>("/api/admin/api-keys", { body: { name: v.name, mode: v.mode === "live" ? "live" : "test", ...(scopes.length ? { scopes } : {}) } }),
      (r) => (form.reset(), keys.reload(), setShown({ label: `API key ${r.apiKey.name}`, secret: r.secret }), `Created API key ${r.apiKey.name}.`),
    );
  }
  const revoke = (k: ApiKey) =>
    action.run(() => api(`/api/admin/api-keys/${k.id}`, { method: "DELETE" }), () => (keys.reload(), `Revoked API key ${k.name}.`));
  const createSigning = () => {
    setShown(null);
    void action.run(
      () => api<{ signingKey: { kid: string }; secret: string }>("/api/admin/signing-keys", { body: { mode: signingMode } }),
      (r) => (signing.reload(), setShown({ label: `signing key ${r.signingKey.kid}`, secret: r.secret, kid: r.signingKey.kid }), `Created signing key ${r.signingKey.kid}.`),
    );
  };
  const retire = (k: SigningKey) =>
    action.run(() => api(`/api/admin/signing-keys/${k.kid}`, { method: "DELETE" }), () => (signing.reload(), `Deleted signing key ${k.kid}.`));

  return (
    <>
      <h1>API keys</h1>
      <p className="muted">For the brand's servers: <code>Authorization: Bearer sk_…</code> on <code>/api/v1</code>. See docs/merchant-api.md.</p>
      <Failure error={keys.error ?? signing.error} />
      <Message message={action.message} />
      {shown && <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      <table>
        <caption className="sr-only">API keys of this brand</caption>
        <thead><tr><th>Name</th><th>Key</th><th>Mode</th><th>Scopes</th><th>Created</th><th>Last used</th><th><span className="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {keys.data?.apiKeys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td><code>{k.prefix}…</code></td>
              <td>{k.mode}</td>
              <td>{k.scopes.join(", ")}</td>
              <td>{date(k.createdAt)}</td>
              <td>{k.lastUsedAt ? date(k.lastUsedAt) : "never"}</td>
              <td className="actions">
                <ConfirmAction label="Revoke" ariaLabel={`Revoke ${k.name}`} question={`Revoke ${k.name}? Servers using it stop working at once.`} confirm="Confirm revoke" busy={action.busy} onConfirm={() => revoke(k)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {keys.data && keys.data.apiKeys.length === 0 && <p>No API keys yet.</p>}
      <form className="card stack" onSubmit={create} style={{ marginTop: "1rem", maxWidth: "36rem" }} aria-labelledby="create-key-heading">
        <h2 id="create-key-heading">Create an API key</h2>
        <Field id="name" label="Name" required maxLength={100} placeholder="shop server" />
        <label htmlFor="mode">Mode</label>
        <select id="mode" name="mode" defaultValue="test">
          <option value="test">test (sk_test_…: demo payments only)</option>
          <option value="live">live (sk_live_…: real money)</option>
        </select>
        <fieldset>
          <legend>Scopes (none ticked: all)</legend>
          {SCOPES.map((scope) => (
            <div className="check" key={scope}>
              <input id={`scope-${scope}`} name="scopes" type="checkbox" value={scope} />
              <label htmlFor={`scope-${scope}`}>{scope}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={action.busy}>Create API key</button>
      </form>

      <h2 style={{ marginTop: "2rem" }}>Signing keys</h2>
      <p className="muted">Sign checkout tokens yourself (HS256, header <code>kid</code>): valid for this brand only. Rotate by creating a new key, moving your server to it, then deleting the old one.</p>
      <table>
        <caption className="sr-only">Signing keys of this brand</caption>
        <thead><tr><th>Key id (kid)</th><th>Mode</th><th>Created</th><th>Last used</th><th><span className="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {signing.data?.signingKeys.map((k) => (
            <tr key={k.kid}>
              <td><code>{k.kid}</code></td>
              <td>{k.mode}</td>
              <td>{date(k.createdAt)}</td>
              <td>{k.lastUsedAt ? date(k.lastUsedAt) : "never"}</td>
              <td className="actions">
                <ConfirmAction label="Delete" ariaLabel={`Delete signing key ${k.kid}`} question="Delete this signing key? Tokens signed with it are refused at once." confirm="Confirm delete" busy={action.busy} onConfirm={() => retire(k)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {signing.data && signing.data.signingKeys.length === 0 && <p>No signing keys yet.</p>}
      <p className="actions">
        <label htmlFor="signing-mode">Mode</label>
        <select id="signing-mode" value={signingMode} onChange={(e) => setSigningMode(e.currentTarget.value === "live" ? "live" : "test")}>
          <option value="test">test</option>
          <option value="live">live</option>
        </select>
        <button type="button" disabled={action.busy} onClick={createSigning}>Create signing key</button>
      </p>
    </>
  );
}

/** The secret, this once: copy it, then it is gone from the page (the service keeps only a hash or a sealed copy). */
function SecretOnce({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(shown.secret);
    setCopied(true);
  };
  return (
    <section className="notice" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Secret of the new {shown.label}</h2>
      <p>Shown this once: copy it and store it now.</p>
      {shown.kid && <p>Key id (kid): <code data-testid="new-kid">{shown.kid}</code></p>}
      <p><code data-testid="new-secret">{shown.secret}</code></p>
      <p className="actions">
        <button type="button" onClick={copy}>{copied ? "Copied" : "Copy secret"}</button>
        <button type="button" className="secondary" onClick={onDone}>Done, I stored it</button>
      </p>
    </section>
  );
}
