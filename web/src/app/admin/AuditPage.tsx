import { useState, type FormEvent } from "react";
import type { AuditLogListReply } from "../../shared/api-types";
import { date, formValues, useApi } from "./hooks";
import { Failure, Field, Pager, Select } from "./ui";

type AuditLog = AuditLogListReply["logs"][number];

/** Who acted, by name when the API knows it; the id otherwise (a removed user, the system). */
const actorOf = (l: AuditLog) => l.actorName ?? (l.actorId ? `${l.actorType} ${l.actorId}` : l.actorType);
/** What was acted on, by name when it still exists; the type and id otherwise. */
/** "order e2e-1", not "order order e2e-1" (issue 36): a name that already says its kind is shown as it is. */
const resourceOf = (l: AuditLog) => {
  const kind = l.resourceType.replaceAll("_", " ");
  if (l.resourceName) return l.resourceName.toLowerCase().startsWith(`${kind.toLowerCase()} `) ? l.resourceName : `${kind} ${l.resourceName}`;
  return `${kind}${l.resourceId ? ` ${l.resourceId}` : ""}`;
};

export function AuditPage() {
  const [query, setQuery] = useState(new URLSearchParams({ page: "1", limit: "25" }));
  const [openId, setOpenId] = useState<string | null>(null);
  const { data, error } = useApi<AuditLogListReply>(`/api/admin/audit-logs?${query}`);
  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const q = new URLSearchParams({ page: "1", limit: "25" });
    for (const key of ["search", "action", "resourceType", "actorType", "success"]) if (v[key]) q.set(key, v[key]);
    setQuery(q);
  }
  const goTo = (p: number) => setQuery(new URLSearchParams({ ...Object.fromEntries(query), page: String(p) }));
  const open = data?.logs.find((l) => l.id === openId) ?? null;
  return (
    <>
      <h1>Audit log</h1>
      <form className="toolbar" onSubmit={filter} role="search" aria-label="Audit log filters">
        <Field id="search" label="Search" type="search" />
        <Field id="action" label="Action" placeholder="e.g. user.login" />
        <Field id="resourceType" label="Resource type" />
        <Select id="actorType" label="Actor" options={[["", "Any"], "user", "system", "api"]} />
        <Select id="success" label="Outcome" options={[["", "Any"], ["true", "Succeeded"], ["false", "Failed"]]} />
        <button type="submit">Filter</button>
      </form>
      <Failure error={error} />
      <table>
        <thead><tr><th>When</th><th>Action</th><th>Resource</th><th>Actor</th><th>Outcome</th><th>Record</th></tr></thead>
        <tbody>
          {data?.logs.map((l) => (
            <tr key={l.id}>
              <td>{date(l.createdAt)}</td>
              <td>{l.action}</td>
              <td>{resourceOf(l)}</td>
              <td>{actorOf(l)}</td>
              <td>{l.success ? "succeeded" : "failed"}</td>
              <td><button type="button" className="link" onClick={() => setOpenId(l.id)} aria-label={`Details of ${l.action} at ${date(l.createdAt)}`}>Details</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.logs.length === 0 && <p>No records match.</p>}
      {data && <Pager always page={data.pagination.page} totalPages={data.pagination.totalPages} total={data.pagination.total} onPage={goTo} />}
      {open && <AuditRecord log={open} onClose={() => setOpenId(null)} />}
    </>
  );
}

/** One record as stored: every field, with the ids next to the names, and its details (before/after or metadata). */
function AuditRecord({ log, onClose }: { log: AuditLog; onClose: () => void }) {
  return (
    <section className="card" aria-label="Audit record" style={{ marginTop: "1rem" }}>
      <h2>{log.action}</h2>
      <dl>
        <dt>When</dt><dd>{date(log.createdAt)}</dd>
        <dt>Outcome</dt><dd>{log.success ? "succeeded" : "failed"}</dd>
        <dt>Actor</dt><dd>{log.actorName ?? "—"} <small>({log.actorType}{log.actorId ? ` ${log.actorId}` : ""})</small></dd>
        <dt>Resource</dt><dd>{log.resourceName ?? "—"} <small>({log.resourceType}{log.resourceId ? ` ${log.resourceId}` : ""})</small></dd>
        <dt>Brand</dt><dd>{log.brandId ?? "—"}</dd>
        <dt>Address</dt><dd>{log.ipAddress ?? "—"}</dd>
        <dt>Browser</dt><dd>{log.userAgent ?? "—"}</dd>
        <dt>Record id</dt><dd><code>{log.id}</code></dd>
      </dl>
      <h3>Details as stored</h3>
      {log.details ? <pre className="dns" data-testid="audit-details">{JSON.stringify(log.details, null, 2)}</pre> : <p>No details were recorded.</p>}
      <button type="button" className="secondary" onClick={onClose}>Close</button>
    </section>
  );
}
