import { useState } from "react";
import type { AuditLogListReply, CommissionListReply, DashboardReply } from "../../shared/api-types";
import { formatMoney } from "../../shared/money";
import { useApi } from "./hooks";
import { Failure } from "./ui";

/** The last `days` days (UTC) as YYYY-MM-DD, oldest first. */
function daysFrom(from: number, days: number): string[] {
  return Array.from({ length: days }, (_, i) => new Date(from + i * 86_400_000).toISOString().slice(0, 10));
}

/** The smallest 1, 2 or 5 × 10^k at or above `value`: the chart's top, so axis labels are round. */
function niceTop(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, value)));
  return [1, 2, 5, 10].map((m) => m * power).find((top) => top >= value)!;
}

/** Sales figures from GET /api/admin/dashboard; commission and audit counts from their APIs. */
export function DashboardPage() {
  const [days, setDays] = useState(30);
  const sales = useApi<DashboardReply>(`/api/admin/dashboard?days=${days}`);
  const commissions = useApi<CommissionListReply>("/api/admin/commissions?report=true&pageSize=1");
  const audit = useApi<AuditLogListReply>("/api/admin/audit-logs?includeStats=true&limit=1");
  // Order amounts add up within one currency only (docs/admin.md).
  const attributed = commissions.data?.report?.byCurrency ?? [];

  // The chart shows the currency with the most orders; others are in the table below it.
  const main = sales.data?.totals[0];
  const series = sales.data && main ? daysFrom(sales.data.from, days).map((date) => ({ date, value: sales.data!.daily.find((d) => d.date === date && d.currency === main.currency)?.revenueCents ?? 0 })) : [];
  const max = niceTop(Math.max(1, ...series.map((s) => s.value)));
  const described = series.filter((s) => s.value > 0).map((s) => `${s.date}: ${formatMoney(s.value, main!.currency)}`).join(", ");

  return (
    <>
      <h1>Dashboard</h1>
      <div className="toolbar">
        <div>
          <label htmlFor="dashboard-days">Period</label>
          <select id="dashboard-days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            <option value={7}>Last 7 days</option>
            <option value={30}>Last 30 days</option>
            <option value={90}>Last 90 days</option>
            <option value={365}>Last 365 days</option>
          </select>
        </div>
      </div>
      <Failure error={sales.error ?? commissions.error ?? audit.error} />
      <div className="stats">
        <div className="card stat"><div className="muted">Orders</div><div className="value" data-testid="stat-orders">{sales.data ? sales.data.totals.reduce((n, t) => n + t.orders, 0) : "…"}</div></div>
        <div className="card stat">
          <div className="muted">Revenue</div>
          <div className="value" data-testid="stat-revenue">{sales.data ? (sales.data.totals.length ? sales.data.totals.map((t) => formatMoney(t.revenueCents, t.currency)).join(" · ") : formatMoney(0, "USD")) : "…"}</div>
        </div>
        <div className="card stat"><div className="muted">Upsell orders</div><div className="value">{sales.data ? sales.data.totals.reduce((n, t) => n + t.upsellOrders, 0) : "…"}</div></div>
        <div className="card stat"><div className="muted">Commissions</div><div className="value" data-testid="stat-commissions">{commissions.data?.pagination.total ?? "…"}</div></div>
        <div className="card stat"><div className="muted">Attributed sales</div><div className="value" data-testid="stat-attributed">{commissions.data ? (attributed.length ? attributed.map((c) => formatMoney(c.totals.orderAmount, c.currency)).join(" · ") : formatMoney(0, "USD")) : "…"}</div></div>
        <div className="card stat"><div className="muted">Audited actions</div><div className="value">{audit.data?.stats?.totalActions ?? "…"}</div></div>
      </div>
      <section className="card" style={{ marginBottom: "1rem" }}>
        <h2>Revenue per day{main ? ` (${main.currency})` : ""}</h2>
        {sales.data && !main && <p>No orders in this period.</p>}
        {main && (
          <>
            <div className="chart">
              <div className="y-axis" aria-hidden="true" data-testid="chart-y-axis">
                <span>{formatMoney(max, main.currency)}</span>
                <span>{formatMoney(max / 2, main.currency)}</span>
                <span>{formatMoney(0, main.currency)}</span>
              </div>
              <div className="bars" role="img" aria-label={described ? `Revenue per day: ${described}` : "No revenue in this period"} data-testid="revenue-chart">
                {/* The tooltip is CSS (hover), from data-tip: no script, and the figures are also in the table below. */}
                {series.map((s) => <div key={s.date} data-tip={`${s.date}: ${formatMoney(s.value, main.currency)}`} style={{ height: `${(s.value / max) * 100}%` }} />)}
              </div>
              <div className="x-axis" aria-hidden="true" data-testid="chart-x-axis">
                <span>{series[0]?.date}</span>
                <span>{series[Math.floor(series.length / 2)]?.date}</span>
                <span>{series.at(-1)?.date}</span>
              </div>
            </div>
            <details>
              <summary>Figures per day</summary>
              <table>
                <thead><tr><th>Day</th><th>Revenue</th></tr></thead>
                <tbody>
                  {series.filter((s) => s.value > 0).map((s) => <tr key={s.date}><td>{s.date}</td><td>{formatMoney(s.value, main.currency)}</td></tr>)}
                </tbody>
              </table>
            </details>
          </>
        )}
      </section>
      <section className="card">
        <h2>Upsell take rate per offer</h2>
        {sales.data && sales.data.offers.length === 0 && <p>No upsell offers shown yet.</p>}
        {sales.data && sales.data.offers.length > 0 && (
          <table>
            <thead><tr><th>Offer</th><th>Currency</th><th>Shown</th><th>Accepted</th><th>Declined</th><th>Take rate</th><th>Revenue</th></tr></thead>
            <tbody>
              {sales.data.offers.map((o) => (
                <tr key={`${o.offerId}:${o.currency}`}>
                  <td>{o.offerName ?? o.offerId}</td><td>{o.currency}</td><td>{o.shown}</td><td>{o.accepted}</td><td>{o.declined}</td><td>{o.takeRate}%</td><td>{formatMoney(o.revenueCents, o.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
