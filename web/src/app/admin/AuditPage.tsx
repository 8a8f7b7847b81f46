import { useState, type FormEvent } from "react";
import { date, formValues, useApi } from "./hooks";
import { Failure, Field, Select } from "./ui";

interface Log { id: string; actorType: string; actorId: string | null; action: string; resourceType: string; resourceId: string | null; success: boolean; createdAt: number; ipAddress: string | null }
interface Reply { logs: Log[]; pagination: { page: number; limit: number; total: number; totalPages: number } }

export function AuditPage() {
  const [query, setQuery] = useState(new URLSearchParams({ page: "1", limit: "25" }));
  const { data, error } = useApi<Reply>(`/api/admin/audit-logs?${query}`);
  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const q = new URLSearchParams({ page: "1", limit: "25" });
    for (const key of ["search", "action", "resourceType", "actorType", "success"]) if (v[key]) q.set(key, v[key]);
    setQuery(q);
  }
  const page = Number(query.get("page"));
  const goTo = (p: number) => setQuery(new URLSearchParams({ ...Object.fromEntries(query), page: String(p) }));
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
        <thead><tr><th>When</th><th>Action</th><th>Resource</th><th>Actor</th><th>Outcome</th><th>Address</th></tr></thead>
        <tbody>
          {data?.logs.map((l) => (
            <tr key={l.id}>
              <td>{date(l.createdAt)}</td>
              <td>{l.action}</td>
              <td>{l.resourceType}{l.resourceId ? ` ${l.resourceId}` : ""}</td>
              <td>{l.actorType}{l.actorId ? ` ${l.actorId}` : ""}</td>
              <td>{l.success ? "succeeded" : "failed"}</td>
              <td>{l.ipAddress ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.logs.length === 0 && <p>No records match.</p>}
      {data && (
        <p className="actions">
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => goTo(page - 1)}>Previous</button>
          <span>Page {data.pagination.page} of {Math.max(1, data.pagination.totalPages)} ({data.pagination.total} in all)</span>
          <button type="button" className="secondary" disabled={page >= data.pagination.totalPages} onClick={() => goTo(page + 1)}>Next</button>
        </p>
      )}
    </>
  );
}
