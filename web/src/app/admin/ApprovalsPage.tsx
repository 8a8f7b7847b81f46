import { useCallback, useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ApprovalsReply } from "../../shared/api-types";
import { formatMoney } from "../../shared/money";
import { useApi } from "./hooks";
import { Failure } from "./ui";

// Approval analytics (issue 34, docs/orchestration.md "Approval analytics"): GET /api/admin/analytics/approvals.
// Loaded on its own (AdminApp's lazy import), so the chart library (uPlot) is fetched by this page only.

type Figures = ApprovalsReply["totals"];
type Row = ApprovalsReply["byProvider"][number];
type Day = ApprovalsReply["byDay"][number];

const DAY_MS = 86_400_000;
const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
const label = (value: string) => (value === "" ? "Unknown" : value);
const providerName = (value: string) => value.replace(/_/g, " ");

/** Every day of the period, oldest first (days without attempts are gaps in the line, zero in the bars). */
function daysOf(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  const days: string[] = [];
  for (let at = start; at <= end && days.length < 400; at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** A uPlot chart over days: sized to its container and drawn again when the data or the width changes. */
function DayChart({ days, values, kind, name, format, testId, description }: { days: string[]; values: (number | null)[]; kind: "line" | "bars"; name: string; format: (v: number) => string; testId: string; description: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const style = getComputedStyle(el);
    const color = style.getPropertyValue("--brand").trim() || "#4338ca";
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: kind === "line" ? { range: [0, 1] } : { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{}, { size: 70, values: (_u, splits) => splits.map((v) => format(v)) }],
      series: [
        {},
        kind === "line"
          ? { label: name, stroke: color, width: 2, spanGaps: false, points: { show: days.length <= 31 }, value: (_u, v) => (v === null ? "–" : format(v)) }
          : { label: name, stroke: color, fill: color, paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false }, value: (_u, v) => (v === null ? "–" : format(v)) },
      ],
    };
    const chart = new uPlot(opts, [xs, values], el);
    const resized = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    resized.observe(el);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [days, values, kind, name, format]);
  return <div ref={box} className="uplot-box" role="img" aria-label={description} data-testid={testId} />;
}

function FiguresTable({ caption, rows, currency, name = label }: { caption: string; rows: Row[]; currency: string; name?: (value: string) => string }) {
  if (rows.length === 0) return null;
  const most = Math.max(1, ...rows.map((r) => r.attempts));
  return (
    <section className="card approvals-table">
      <h2>{caption}</h2>
      <table>
        <thead>
          <tr><th scope="col">{caption.replace(/^By /, "").replace(/^./, (c) => c.toUpperCase())}</th><th scope="col">Attempts</th><th scope="col">Approved</th><th scope="col">Approval rate</th><th scope="col">Failed</th><th scope="col">Approved amount</th><th scope="col">Refunded</th><th scope="col">Recovered</th></tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.value}>
              <th scope="row">{name(r.value)}</th>
              <td><span className="share-bar" style={{ width: `${(r.attempts / most) * 4}rem` }} aria-hidden="true" />{r.attempts}</td>
              <td>{r.approved}</td>
              <td>{percent(r.approvalRate)}</td>
              <td>{r.failed}</td>
              <td>{formatMoney(r.approvedAmount, currency)}</td>
              <td>{formatMoney(r.refundedAmount, currency)}</td>
              <td>{r.recovered} ({formatMoney(r.recoveredAmount, currency)})</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const Stat = ({ title, value, testId }: { title: string; value: string; testId?: string }) => (
  <div className="card stat"><div className="muted">{title}</div><div className="value" data-testid={testId}>{value}</div></div>
);

/** Approval rates per day, provider, decline code, card, country and amount; what cascades recovered. Follows the Live/Test switch. */
export function ApprovalsPage() {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [currency, setCurrency] = useState("");
  const query = new URLSearchParams();
  if (from) query.set("from", from);
  if (to) query.set("to", to);
  if (currency) query.set("currency", currency);
  const { data, error } = useApi<ApprovalsReply>(`/api/admin/analytics/approvals${query.toString() ? `?${query}` : ""}`);
  const money = data?.currency ?? "USD";
  // Stable per currency: a chart is drawn again only when its data or format changes.
  const moneyFormat = useCallback((v: number) => formatMoney(v, money), [money]);

  const [series, setSeries] = useState<{ days: string[]; rate: (number | null)[]; recovered: number[] } | null>(null);
  useEffect(() => {
    if (!data) return;
    const days = daysOf(data.from, data.to);
    const byDay = new Map<string, Day>(data.byDay.map((d) => [d.day, d]));
    setSeries({
      days,
      rate: days.map((d) => (byDay.get(d)?.attempts ? byDay.get(d)!.approvalRate : null)),
      recovered: days.map((d) => byDay.get(d)?.recoveredAmount ?? 0),
    });
  }, [data]);
  const totals: Figures | null = data?.totals ?? null;
  const rated = data?.byDay.filter((d) => d.attempts > 0) ?? [];
  const rateText = rated.map((d) => `${d.day}: ${percent(d.approvalRate)}`).join(", ");
  const recoveredText = (data?.byDay.filter((d) => d.recoveredAmount > 0) ?? []).map((d) => `${d.day}: ${formatMoney(d.recoveredAmount, money)}`).join(", ");

  return (
    <>
      <h1>Approvals</h1>
      <form className="toolbar" aria-label="Period" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="approvals-from">From</label>
          <input id="approvals-from" type="date" value={from || data?.from || ""} max={to || data?.to} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div>
          <label htmlFor="approvals-to">To</label>
          <input id="approvals-to" type="date" value={to || data?.to || ""} min={from || data?.from} onChange={(e) => setTo(e.target.value)} />
        </div>
        {data && data.currencies.length > 1 && (
          <div>
            <label htmlFor="approvals-currency">Currency</label>
            <select id="approvals-currency" value={data.currency ?? ""} onChange={(e) => setCurrency(e.target.value)}>
              {data.currencies.map((c) => <option key={c.currency} value={c.currency}>{c.currency} ({c.attempts} attempts)</option>)}
            </select>
          </div>
        )}
      </form>
      <Failure error={error} />
      {data && totals && (
        <>
          {totals.attempts === 0 && totals.failed === 0 && <p>No payment attempts in this period.</p>}
          <div className="stats">
            <Stat title="Approval rate" value={percent(totals.approvalRate)} testId="approvals-rate" />
            <Stat title="Attempts (approved + declined)" value={String(totals.attempts)} testId="approvals-attempts" />
            <Stat title="Approved" value={formatMoney(totals.approvedAmount, money)} testId="approvals-approved-amount" />
            <Stat title="Net of refunds" value={formatMoney(totals.netAmount, money)} testId="approvals-net" />
            <Stat title="Recovered by cascades" value={`${formatMoney(totals.recoveredAmount, money)} (${totals.recovered})`} testId="approvals-recovered" />
            <Stat title="Provider failures" value={String(totals.failed)} testId="approvals-failed" />
          </div>
          {series && (
            <>
              <section className="card" style={{ marginBottom: "1rem" }}>
                <h2>Approval rate by day{data.currency ? ` (${data.currency})` : ""}</h2>
                <DayChart days={series.days} values={series.rate} kind="line" name="Approval rate" format={percent} testId="approvals-rate-chart" description={rateText ? `Approval rate by day: ${rateText}` : "No attempts in this period"} />
                <details>
                  <summary>Figures per day</summary>
                  <table>
                    <thead><tr><th scope="col">Day</th><th scope="col">Attempts</th><th scope="col">Approved</th><th scope="col">Approval rate</th><th scope="col">Net amount</th></tr></thead>
                    <tbody>{rated.map((d) => <tr key={d.day}><td>{d.day}</td><td>{d.attempts}</td><td>{d.approved}</td><td>{percent(d.approvalRate)}</td><td>{formatMoney(d.netAmount, money)}</td></tr>)}</tbody>
                  </table>
                </details>
              </section>
              <section className="card" style={{ marginBottom: "1rem" }}>
                <h2>Revenue recovered by cascades</h2>
                <p>Sales approved by another provider after a soft decline in the same payment: {formatMoney(totals.recoveredAmount, money)} from {totals.recovered} sales.</p>
                <DayChart days={series.days} values={series.recovered} kind="bars" name="Recovered" format={moneyFormat} testId="approvals-recovered-chart" description={recoveredText ? `Revenue recovered by day: ${recoveredText}` : "Nothing recovered in this period"} />
              </section>
            </>
          )}
          <FiguresTable caption="By provider" rows={data.byProvider} currency={money} name={providerName} />
          {data.byDeclineCode.length > 0 && (
            <section className="card approvals-table">
              <h2>By decline code</h2>
              <table>
                <thead><tr><th scope="col">Decline code</th><th scope="col">Declined</th><th scope="col">Failed</th><th scope="col">Share</th></tr></thead>
                <tbody>{data.byDeclineCode.map((c) => <tr key={c.value}><th scope="row">{c.value}</th><td>{c.declined}</td><td>{c.failed}</td><td>{percent(c.share)}</td></tr>)}</tbody>
              </table>
            </section>
          )}
          <FiguresTable caption="By card brand" rows={data.byCardBrand} currency={money} />
          <FiguresTable caption="By BIN country" rows={data.byBinCountry} currency={money} />
          <FiguresTable caption="By amount band" rows={data.byAmountBand} currency={money} />
        </>
      )}
    </>
  );
}
