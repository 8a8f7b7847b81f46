import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { SettingsReply, UpdateSettingsReply } from "../../shared/api-types";
import { useAction, useApi } from "./hooks";
import { Failure, Message } from "./ui";

type Values = Record<string, string | boolean>;
type Fields = SettingsReply["fields"][string];
/** Which credentials a form edits: the live ones, or the provider's sandbox saved as test credentials (issue 33). */
type Mode = "live" | "test";
const MODE_LABEL: Record<Mode, string> = { live: "Live", test: "Test (sandbox)" };

/** Words a merchant reads for a settings key (issue 36): `securityKey` → "Security key", `baseUrl` → "Base URL". */
const ACRONYMS: Record<string, string> = { api: "API", url: "URL", id: "ID", sms: "SMS", crm: "CRM", ip: "IP", smtp: "SMTP", cvv: "CVV", "3ds": "3-D Secure" };
export function wordsOf(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[\s_-]+/).filter(Boolean).map((w) => ACRONYMS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Provider settings of the session's brand: status, masked secrets, one form per provider (keys from
 * the GET's `fields`). A payment provider has a Live / Test (sandbox) choice: test credentials (the
 * provider's sandbox) charge test objects, live ones live objects.
 */
export function SettingsPage() {
  const { data, error, reload } = useApi<SettingsReply>("/api/admin/settings");
  const action = useAction();
  const [modes, setModes] = useState<Record<string, Mode>>({});

  function save(provider: string, fields: Fields, mode: Mode) {
    return (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = new FormData(event.currentTarget);
      const settings: Values = { enabled: form.get("enabled") === "on" };
      for (const key of [...fields.required, ...fields.optional]) {
        if (fields.booleans.includes(key)) settings[key] = form.get(key) === "on";
        else {
          const value = String(form.get(key) ?? "");
          // A blank secret keeps the stored one (the form never holds it); "Remove" clears it.
          if (value !== "" || !fields.secrets.includes(key)) settings[key] = value;
          if (form.get(`${key}:remove`) === "on") settings[key] = "";
        }
      }
      const testMode = mode === "test";
      void action.run(
        () => api<UpdateSettingsReply>("/api/admin/settings", { body: testMode ? { provider, settings, mode } : { provider, settings } }),
        (r) =>
          (reload(),
          testMode
            ? `Saved ${provider} test (sandbox) credentials: ${r.status === "configured" ? "configured, test objects go to the sandbox" : "not configured (test objects use demo mode)"}.`
            : `Saved ${provider}: ${r.status === "configured" ? "configured" : "not configured (demo mode)"}.`),
      );
    };
  }

  /** Issue 34: the demo adapter's "Simulate outage" switch of a payment provider, test mode only. */
  function setOutage(provider: string) {
    return (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const outage = String(new FormData(event.currentTarget).get("outage") ?? "off");
      void action.run(
        () => api("/api/admin/settings/demo-outage", { method: "PUT", body: { provider, outage, livemode: false } }),
        () => (reload(), outage === "off" ? `${provider}: no simulated outage.` : `${provider}: simulating an outage (${outage}) for test payments on its demo adapter.`),
      );
    };
  }

  return (
    <>
      <h1>Provider settings</h1>
      <p className="muted">
        For the selected brand. A provider without its required keys runs in demo mode. Secrets are stored sealed and shown masked; leave a secret blank to keep it. A payment
        provider takes <strong>Live</strong> credentials (live objects, real money) and, apart, <strong>Test (sandbox)</strong> credentials: the provider&apos;s sandbox, which
        then charges your test objects instead of the demo providers. Live credentials never charge a test object, sandbox ones never a live object.
      </p>
      <Failure error={error} />
      <Message message={action.message} />
      {data && (
        <table>
          <thead><tr><th>Provider</th><th>Kind</th><th>Enabled</th><th>Status</th><th>Test (sandbox)</th></tr></thead>
          <tbody>
            {data.providers.map((p) => (
              <tr key={p}>
                <td>{p}</td>
                <td>{data.providerCategories[p]?.join(", ")}</td>
                <td>{data.settings[p]?.enabled ? "yes" : "no"}</td>
                <td data-testid={`status-${p}`}>{data.status[p] === "configured" ? "configured" : "demo"}</td>
                <td data-testid={`test-status-${p}`}>
                  {!isPayment(data, p) ? "—" : data.testStatus[p] === "configured" && data.testSettings[p]?.enabled ? "sandbox" : "demo"}
                  {data.demoOutages[p] ? ` (outage: ${data.demoOutages[p]})` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data?.providers.map((p) => {
        const fields = data.fields[p]!;
        const payment = isPayment(data, p);
        const mode: Mode = payment ? (modes[p] ?? "live") : "live";
        const current = (mode === "test" ? data.testSettings[p] : data.settings[p]) ?? {};
        const id = (key: string) => (mode === "test" ? `${p}-test-${key}` : `${p}-${key}`);
        return (
          <details key={p} className="card" style={{ marginTop: "1rem" }}>
            <summary><strong>{p}</strong> — {data.status[p] === "configured" ? "configured" : "demo"}</summary>
            {payment && (
              <fieldset style={{ marginTop: "0.75rem" }}>
                <legend>Credentials of {p} to edit</legend>
                {(["live", "test"] as const).map((m) => (
                  <span className="check" key={m} style={{ display: "inline-flex", marginRight: "1rem" }}>
                    <input id={`${p}-mode-${m}`} name={`${p}-mode`} type="radio" checked={mode === m} onChange={() => setModes({ ...modes, [p]: m })} />
                    <label htmlFor={`${p}-mode-${m}`}>{MODE_LABEL[m]}</label>
                  </span>
                ))}
              </fieldset>
            )}
            <form
              key={`${mode}:${JSON.stringify(current)}`}
              className="stack"
              onSubmit={save(p, fields, mode)}
              aria-label={mode === "test" ? `Test (sandbox) settings of ${p}` : `Settings of ${p}`}
              style={{ marginTop: "0.75rem", maxWidth: "32rem" }}
            >
              {mode === "test" && <p className="muted">The provider&apos;s sandbox credentials (typically its sandbox baseUrl): used for test objects only.</p>}
              <div className="check">
                <input id={id("enabled")} name="enabled" type="checkbox" defaultChecked={current.enabled === true || Object.keys(current).length <= 1} />
                <label htmlFor={id("enabled")}>Enabled</label>
              </div>
              {[...fields.required, ...fields.optional].map((key) => {
                const required = fields.required.includes(key);
                const label = `${wordsOf(key)}${required ? " (required)" : ""}`;
                if (fields.booleans.includes(key))
                  return (
                    <div className="check" key={key}>
                      <input id={id(key)} name={key} type="checkbox" defaultChecked={current[key] === true} />
                      <label htmlFor={id(key)}>{label}</label>
                    </div>
                  );
                const secret = fields.secrets.includes(key);
                const stored = typeof current[key] === "string" ? (current[key] as string) : "";
                return (
                  <div key={key}>
                    <label htmlFor={id(key)}>{label}</label>
                    <input id={id(key)} name={key} type={secret ? "password" : "text"} autoComplete="off" defaultValue={secret ? "" : stored} placeholder={secret && stored ? `stored: ${stored}` : undefined} />
                    {secret && stored && (
                      <div className="check">
                        <input id={id(`${key}-remove`)} name={`${key}:remove`} type="checkbox" />
                        <label htmlFor={id(`${key}-remove`)}>Remove the stored {wordsOf(key).toLowerCase()} ({stored})</label>
                      </div>
                    )}
                  </div>
                );
              })}
              <button type="submit" disabled={action.busy}>{mode === "test" ? `Save ${p} test (sandbox) credentials` : `Save ${p}`}</button>
            </form>
            {payment && mode === "test" && (
              <form key={`outage:${data.demoOutages[p] ?? "off"}`} className="stack" onSubmit={setOutage(p)} aria-label={`Simulate outage of ${p}`} style={{ marginTop: "0.75rem", maxWidth: "32rem" }}>
                <label htmlFor={`${p}-outage`}>Simulate outage (test payments on the demo adapter only)</label>
                <select id={`${p}-outage`} name="outage" defaultValue={data.demoOutages[p] ?? "off"}>
                  <option value="off">Off</option>
                  <option value="down">Down: fails at once, nothing charged</option>
                  <option value="timeout">Timeout: charges, then no answer for 1.5 s</option>
                </select>
                <button type="submit" disabled={action.busy}>Apply to {p}</button>
              </form>
            )}
          </details>
        );
      })}
    </>
  );
}

/** Whether the provider takes test (sandbox) credentials: payment providers only. */
const isPayment = (data: SettingsReply, provider: string) => data.providerCategories[provider]?.includes("payment") === true;
