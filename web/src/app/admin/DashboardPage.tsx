import { formatMoney } from "../../shared/money";
import { useApi } from "./hooks";
import { Failure } from "./ui";

interface Totals { count: number; commissionAmount: number; orderAmount: number }
interface CommissionReportReply { report?: { byStatus: Record<string, Totals> }; pagination: { total: number } }
interface AuditReply { pagination: { total: number }; stats?: { totalActions: number; successRate: number; actionsByType: Record<string, number> } }

/** Counts from the commission and audit APIs (the order and take-rate APIs are not built yet). */
export function DashboardPage() {
  const commissions = useApi<CommissionReportReply>("/api/admin/commissions?report=true&pageSize=1");
  const audit = useApi<AuditReply>("/api/admin/audit-logs?includeStats=true&limit=1");
  const byStatus = commissions.data?.report?.byStatus ?? {};
  const actions = Object.entries(audit.data?.stats?.actionsByType ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 12);
  const max = Math.max(1, ...actions.map(([, n]) => n));
  const attributed = Object.values(byStatus).reduce((sum, t) => sum + t.orderAmount, 0);
  return (
    <>
      <h1>Dashboard</h1>
      <Failure error={commissions.error ?? audit.error} />
      <div className="stats">
        <div className="card stat"><div className="muted">Commissions</div><div className="value" data-testid="stat-commissions">{commissions.data?.pagination.total ?? "…"}</div></div>
        <div className="card stat"><div className="muted">Attributed sales</div><div className="value">{formatMoney(attributed, "USD")}</div></div>
        <div className="card stat"><div className="muted">Audited actions</div><div className="value">{audit.data?.stats?.totalActions ?? "…"}</div></div>
        <div className="card stat"><div className="muted">Successful actions</div><div className="value">{audit.data?.stats ? `${audit.data.stats.successRate}%` : "…"}</div></div>
      </div>
      <section className="card">
        <h2>Actions by type</h2>
        <div className="bars" role="img" aria-label={actions.map(([a, n]) => `${a}: ${n}`).join(", ") || "No actions yet"}>
          {actions.map(([a, n]) => <div key={a} title={`${a}: ${n}`} style={{ height: `${(n / max) * 100}%` }} />)}
        </div>
        <table>
          <thead><tr><th>Action</th><th>Count</th></tr></thead>
          <tbody>{actions.map(([a, n]) => <tr key={a}><td>{a}</td><td>{n}</td></tr>)}</tbody>
        </table>
      </section>
    </>
  );
}
