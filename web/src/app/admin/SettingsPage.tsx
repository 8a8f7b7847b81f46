import type { FormEvent } from "react";
import { api } from "../../shared/api";
import type { SettingsReply, UpdateSettingsReply } from "../../shared/api-types";
import { useAction, useApi } from "./hooks";
import { Failure, Message } from "./ui";

type Values = Record<string, string | boolean>;
type Fields = SettingsReply["fields"][string];

/** Provider settings of the session's brand: status, masked secrets, one form per provider (keys from the GET's `fields`). */
export function SettingsPage() {
  const { data, error, reload } = useApi<SettingsReply>("/api/admin/settings");
  const action = useAction();

  function save(provider: string, fields: Fields) {
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
      void action.run(
        () => api<UpdateSettingsReply>("/api/admin/settings", { body: { provider, settings } }),
        (r) => (reload(), `Saved ${provider}: ${r.status === "configured" ? "configured" : "not configured (demo mode)"}.`),
      );
    };
  }

  return (
    <>
      <h1>Provider settings</h1>
      <p className="muted">For the selected brand. A provider without its required keys runs in demo mode. Secrets are stored sealed and shown masked; leave a secret blank to keep it.</p>
      <Failure error={error} />
      <Message message={action.message} />
      {data && (
        <table>
          <thead><tr><th>Provider</th><th>Kind</th><th>Enabled</th><th>Status</th></tr></thead>
          <tbody>
            {data.providers.map((p) => (
              <tr key={p}>
                <td>{p}</td>
                <td>{data.providerCategories[p]?.join(", ")}</td>
                <td>{data.settings[p]?.enabled ? "yes" : "no"}</td>
                <td data-testid={`status-${p}`}>{data.status[p] === "configured" ? "configured" : "demo"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data?.providers.map((p) => {
        const fields = data.fields[p]!;
        const current = data.settings[p] ?? {};
        const id = (key: string) => `${p}-${key}`;
        return (
          <details key={p} className="card" style={{ marginTop: "1rem" }}>
            <summary><strong>{p}</strong> — {data.status[p] === "configured" ? "configured" : "demo"}</summary>
            <form key={JSON.stringify(current)} className="stack" onSubmit={save(p, fields)} aria-label={`Settings of ${p}`} style={{ marginTop: "0.75rem", maxWidth: "32rem" }}>
              <div className="check">
                <input id={id("enabled")} name="enabled" type="checkbox" defaultChecked={current.enabled === true || Object.keys(current).length <= 1} />
                <label htmlFor={id("enabled")}>Enabled</label>
              </div>
              {[...fields.required, ...fields.optional].map((key) => {
                const required = fields.required.includes(key);
                const label = `${key}${required ? " (required)" : ""}`;
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
                        <label htmlFor={id(`${key}-remove`)}>Remove the stored {key} ({stored})</label>
                      </div>
                    )}
                  </div>
                );
              })}
              <button type="submit" disabled={action.busy}>Save {p}</button>
            </form>
          </details>
        );
      })}
    </>
  );
}
