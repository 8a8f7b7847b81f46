import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { CommissionBulkReply, CommissionListReply } from "../../shared/api-types";
import { formatMoney } from "../../shared/money";
import { date, formValues, useAction, useApi } from "./hooks";
import { Failure, Field, Message, Pager, Select } from "./ui";

const STATUSES = ["", "pending", "approved", "paid", "cancelled", "disputed"] as const;
const ACTIONS = [["approve", "Approve"], ["cancel", "Cancel"], ["dispute", "Dispute"], ["markPaid", "Mark paid"]] as const;
const dayMs = (value: string, end = false) => (value ? String(Date.parse(`${value}T00:00:00Z`) + (end ? 86_399_999 : 0)) : "");

export function CommissionsPage() {
  const [query, setQuery] = useState(new URLSearchParams({ page: "1" }));
  const { data, error, reload } = useApi<CommissionListReply>(`/api/admin/commissions?${query}`);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const action = useAction();

  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const q = new URLSearchParams({ page: "1" });
    if (v.status) q.set("status", v.status);
    if (v.salespersonId) q.set("salespersonId", v.salespersonId);
    if (v.startDate) q.set("startDate", dayMs(v.startDate));
    if (v.endDate) q.set("endDate", dayMs(v.endDate, true));
    setSelected(new Set());
    setQuery(q);
  }
  function bulk(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(
      () => api<CommissionBulkReply>("/api/admin/commissions", { body: { action: v.action, commissionIds: [...selected], ...(v.notes ? { notes: v.notes } : {}) } }),
      (r) => {
        setSelected(new Set());
        reload();
        return `${r.updated.length} updated${r.skipped.length ? `, ${r.skipped.length} unchanged (${r.skipped.map((s) => s.reason).join("; ")})` : ""}.`;
      },
    );
  }
  const toggle = (id: string) => setSelected((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set([...s, id])));
  const goTo = (p: number) => setQuery(new URLSearchParams({ ...Object.fromEntries(query), page: String(p) }));

  return (
    <>
      <h1>Commissions</h1>
      <form className="toolbar" onSubmit={filter} aria-label="Filters">
        <Select id="status" label="Status" options={STATUSES.map((s) => [s, s || "Any"] as [string, string])} />
        <Field id="salespersonId" label="Salesperson id" />
        <Field id="startDate" label="From" type="date" />
        <Field id="endDate" label="To" type="date" />
        <button type="submit">Filter</button>
      </form>
      <Failure error={error} />
      <form className="toolbar" onSubmit={bulk} aria-label="Bulk action">
        <Select id="action" label="Action for selected" options={ACTIONS as unknown as [string, string][]} />
        <Field id="notes" label="Notes (optional)" />
        <button type="submit" disabled={selected.size === 0 || action.busy}>Apply to {selected.size} selected</button>
      </form>
      <Message message={action.message} />
      <table>
        <thead>
          <tr><th><span className="sr-only">Select</span></th><th>Order</th><th>Salesperson</th><th>Order amount</th><th>Commission</th><th>Status</th><th>Created</th></tr>
        </thead>
        <tbody>
          {data?.commissions.map((c) => (
            <tr key={c.id}>
              <td><input type="checkbox" aria-label={`Select commission for order ${c.orderId}`} checked={selected.has(c.id)} onChange={() => toggle(c.id)} /></td>
              <td>{c.orderId}</td>
              <td>{c.salespersonName ?? c.salespersonId}</td>
              <td>{formatMoney(c.orderAmount, c.currency)}</td>
              <td>{formatMoney(c.commissionAmount, c.currency)}</td>
              <td>{c.status}{c.notes ? ` (${c.notes})` : ""}</td>
              <td>{date(c.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.commissions.length === 0 && <p>No commissions match.</p>}
      {data && <Pager always page={data.pagination.page} totalPages={data.pagination.totalPages} total={data.pagination.total} onPage={goTo} />}
    </>
  );
}
