import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError, messageOf } from "../shared/api";
import type { PortalStateReply } from "../shared/api-types";
import { formatMoney } from "../shared/money";
import { chooseMode, learnMode, useMode, withMode } from "./admin/mode";

type PortalState = PortalStateReply;

const SUMS = [["total", "Total"], ["pending", "Pending"], ["approved", "Approved"], ["paid", "Paid"]] as const;

/** The salesperson portal (CONTRACT §12): its own login and cookie, the sums of their commissions per currency. */
export function PortalPage() {
  const [state, setState] = useState<PortalState | null | "loading">("loading");
  const [error, setError] = useState<string | null>(null);
  // One mode at a time (CONTRACT §39), the switch shared with the back office in this browser.
  const mode = useMode();
  const load = () =>
    api<PortalState>(withMode("/api/salesperson/auth", mode))
      .then((s) => (learnMode(s.livemode), setState(s)))
      .catch((e) => (e instanceof ApiError && e.status === 401 ? setState(null) : setError(messageOf(e))));
  useEffect(() => {
    void load();
  }, [mode]);

  async function login(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>;
    setError(null);
    try {
      await api("/api/salesperson/auth", { body: { email: v.email, password: v.password } });
      await load();
    } catch (e) {
      setError(messageOf(e));
    }
  }
  async function logout() {
    await api("/api/salesperson/auth", { method: "DELETE" });
    setState(null);
  }

  if (state === "loading") return <main className="narrow" aria-busy="true"><p>Loading…</p></main>;
  const alert = <div role="alert" className={error ? "error" : ""}>{error ?? ""}</div>;
  if (!state)
    return (
      <main className="narrow">
        <form className="card stack" onSubmit={login}>
          <h1>Salesperson portal</h1>
          {alert}
          <div><label htmlFor="email">Email</label><input id="email" name="email" type="email" autoComplete="username" required /></div>
          <div><label htmlFor="password">Password</label><input id="password" name="password" type="password" autoComplete="current-password" required /></div>
          <button type="submit" className="wide">Sign in</button>
        </form>
      </main>
    );
  const c = state.commissions;
  return (
    <main className="page">
      {!state.livemode && (
        <p className="test-banner" role="status" data-testid="test-banner"><strong>TEST</strong> You are viewing test commissions: no real money moved.</p>
      )}
      <h1>Hello, {state.salesperson.name}</h1>
      {alert}
      <fieldset className="mode-switch">
        <legend>Data shown</legend>
        <label><input type="radio" name="mode" value="live" checked={state.livemode} onChange={() => chooseMode(true)} /> Live</label>
        <label><input type="radio" name="mode" value="test" checked={!state.livemode} onChange={() => chooseMode(false)} /> Test</label>
      </fieldset>
      <div className="stats">
        <div className="card stat"><div className="muted">Commissions</div><div className="value" data-testid="portal-count">{c.count}</div></div>
      </div>
      {/* Amounts add up only within a currency: one row each (GET /api/salesperson/auth's byCurrency). */}
      {c.byCurrency.length === 0 ? (
        <p>No commissions yet.</p>
      ) : (
        <table>
          <caption>Your commissions by currency</caption>
          <thead><tr><th scope="col">Currency</th>{SUMS.map(([key, label]) => <th scope="col" key={key}>{label}</th>)}<th scope="col">Count</th></tr></thead>
          <tbody>
            {c.byCurrency.map((row) => (
              <tr key={row.currency}>
                <th scope="row">{row.currency}</th>
                {SUMS.map(([key]) => <td key={key} data-testid={`portal-${row.currency}-${key}`}>{formatMoney(row[key], row.currency)}</td>)}
                <td>{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {/* Issue 36 item 14: the sales themselves, not only their sums (the newest 100 of the mode). */}
      {state.sales.length > 0 && (
        <table>
          <caption>Your sales</caption>
          <thead><tr><th scope="col">Date</th><th scope="col">Order</th><th scope="col">Amount</th><th scope="col">Commission</th><th scope="col">Status</th></tr></thead>
          <tbody>
            {state.sales.map((sale) => (
              <tr key={sale.orderId} data-testid="portal-sale">
                <td>{new Date(sale.createdAt).toLocaleDateString()}</td>
                <td>{sale.orderId}</td>
                <td>{formatMoney(sale.orderAmount, sale.currency)}</td>
                <td>{formatMoney(sale.commissionAmount, sale.currency)}</td>
                <td>{sale.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {/* CONTRACT §38: what refunds and lost disputes took back of paid commissions; the next payout nets the open ones. */}
      {c.clawbacks.length > 0 && (
        <table>
          <caption>Clawbacks</caption>
          <thead><tr><th scope="col">Order</th><th scope="col">Amount</th><th scope="col">When</th><th scope="col">Netted</th></tr></thead>
          <tbody>
            {c.clawbacks.map((line) => (
              <tr key={line.id}>
                <td>{line.orderId}</td>
                <td>{formatMoney(line.amount, line.currency)}</td>
                <td>{new Date(line.createdAt).toLocaleDateString()}</td>
                <td>{line.nettedAt === null ? "with the next payout" : new Date(line.nettedAt).toLocaleDateString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p><button type="button" className="secondary" onClick={logout}>Log out</button></p>
    </main>
  );
}
