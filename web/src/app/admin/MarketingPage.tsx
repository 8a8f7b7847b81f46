import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { ListsReply, UpdateMappingsReply } from "../../shared/api-types";
import { useAction, useApi } from "./hooks";
import { Failure, Message } from "./ui";

const SOURCES = [
  ["email_list_a", "Email lists A"],
  ["email_list_b", "Email lists B"],
  ["sms_segments", "SMS segments"],
] as const;

/** Display names of the brand's marketing lists, one integration at a time. */
export function MarketingPage() {
  const [source, setSource] = useState<string>(SOURCES[0][0]);
  return (
    <>
      <h1>Marketing lists</h1>
      <p className="muted">The integration's API key is stored in Provider settings. An empty name goes back to the list's own name.</p>
      <div className="tabs" role="group" aria-label="Integration">
        {SOURCES.map(([id, text]) => (
          <button key={id} type="button" className={id === source ? "" : "secondary"} aria-pressed={id === source} onClick={() => setSource(id)}>{text}</button>
        ))}
      </div>
      <Lists key={source} source={source} name={SOURCES.find(([id]) => id === source)![1]} />
    </>
  );
}

function Lists({ source, name }: { source: string; name: string }) {
  const { data, error, errorCode, reload } = useApi<ListsReply>(`/api/admin/${source}/lists`);
  const action = useAction();
  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const mappings: Record<string, string> = {};
    for (const list of data?.lists ?? []) {
      const value = String(form.get(list.listId) ?? "").trim();
      const custom = data?.mappings[list.listId] ?? "";
      if (value !== custom) mappings[list.listId] = value;
    }
    void action.run(() => api<UpdateMappingsReply>(`/api/admin/${source}/lists`, { method: "PUT", body: { mappings } }), (r) => (reload(), `Saved: ${r.updated} changed.`));
  }
  return (
    <>
      {errorCode === "INTEGRATION_NOT_CONFIGURED" ? (
        <p className="info" data-testid="integration-not-configured">
          {name} is not connected for this brand yet: store its API key under <a href="/admin/settings">Provider settings</a>, then come back here to name its lists.
        </p>
      ) : (
        <Failure error={error} />
      )}
      <Message message={action.message} />
      {data && data.lists.length === 0 && <p>The integration has no lists.</p>}
      {data && data.lists.length > 0 && (
        <form onSubmit={save} key={JSON.stringify(data.mappings)}>
          <table>
            <thead><tr><th>List</th><th>Id</th><th>Display name</th></tr></thead>
            <tbody>
              {data.lists.map((l) => (
                <tr key={l.listId}>
                  <td>{l.originalName}</td>
                  <td><code>{l.listId}</code></td>
                  <td><input name={l.listId} aria-label={`Display name of ${l.originalName}`} defaultValue={data.mappings[l.listId] ?? ""} placeholder={l.originalName} maxLength={200} /></td>
                </tr>
              ))}
            </tbody>
          </table>
          <p><button type="submit" disabled={action.busy}>Save names</button></p>
        </form>
      )}
    </>
  );
}
