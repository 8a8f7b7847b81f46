import { useState, type FormEvent } from "react";
import type { AuditLogListReply } from "../../shared/api-types";
import { date, formValues, useApi } from "./hooks";
import { Failure, Field, Pager, Select } from "./ui";

export function AuditPage() {
  const [query, setQuery] = useState(new URLSearchParams({ page: "1", limit: "25" }));
  const { data, error } = useApi<AuditLogListReply>(`/api/admin/audit-logs?${query}`);
  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const q = new URLSearchParams({ page: "1", limit: "25" });
    for (const key of ["search", "action", "resourceType", "actorType", "success"]) if (v[key]) q.set(key, v[key]);
    setQuery(q);
  }
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
      {data && <Pager always page={data.pagination.page} totalPages={data.pagination.totalPages} total={data.pagination.total} onPage={goTo} />}
    </>
  );
}
