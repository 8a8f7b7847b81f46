import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import { formatMoney } from "../../shared/money";
import { date, formValues, useAction, useApi } from "./hooks";
import { Failure, Field, Message, Select } from "./ui";

interface Commission {
  id: string;
  orderId: string;
  salespersonId: string;
  salespersonName: string | null;
  orderAmount: number;
  commissionAmount: number;
  commissionRate: number;
  commissionType: string;
  status: string;
  notes: string | null;
  createdAt: number;
}
interface Reply { commissions: Commission[]; pagination: { page: number; pageSize: number; total: number; totalPages: number } }

const STATUSES = ["", "pending", "approved", "paid", "cancelled", "disputed"] as const;
const ACTIONS = [["approve", "Approve"], ["cancel", "Cancel"], ["dispute", "Dispute"], ["markPaid", "Mark paid"]] as const;
const dayMs = (value: string, end = false) => (value ? String(Date.parse(`${value}T00:00:00Z`) + (end ? 86_399_999 : 0)) : "");

export function CommissionsPage() {
  const [query, setQuery] = useState(new URLSearchParams({ page: "1" }));
  const { data, error, reload } = useApi<Reply>(`/api/admin/commissions?${query}`);
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
      () => api<{ updated: string[]; skipped: { id: string; reason: string }[] }>("/api/admin/commissions", { body: { action: v.action, commissionIds: [...selected], ...(v.notes ? { notes: v.notes } : {}) } }),
      (r) => {
        setSelected(new Set());
        reload();
        return `${r.updated.length} updated${r.skipped.length ? `, ${r.skipped.length} unchanged (${r.skipped.map((s) => s.reason).join("; ")})` : ""}.`;
      },
    );
  }
  const toggle = (id: string) => setSelected((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set([...s, id])));
  const page = Number(query.get("page"));
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
              <td>{formatMoney(c.orderAmount, "USD")}</td>
              <td>{formatMoney(c.commissionAmount, "USD")}</td>
              <td>{c.status}{c.notes ? ` (${c.notes})` : ""}</td>
              <td>{date(c.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.commissions.length === 0 && <p>No commissions match.</p>}
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
