import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError, messageOf } from "../shared/api";
import { formatMoney } from "../shared/money";

interface PortalState {
  salesperson: { id: string; name: string; email: string };
  commissions: { total: number; pending: number; approved: number; paid: number; count: number };
}

/** The salesperson portal (CONTRACT §12): its own login and cookie, the sums of their commissions. */
export function PortalPage() {
  const [state, setState] = useState<PortalState | null | "loading">("loading");
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<PortalState>("/api/salesperson/auth")
      .then(setState)
      .catch((e) => (e instanceof ApiError && e.status === 401 ? setState(null) : setError(messageOf(e))));
  useEffect(() => {
    void load();
  }, []);

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
      <h1>Hello, {state.salesperson.name}</h1>
      {alert}
      <div className="stats">
        {([["Commissions", String(c.count)], ["Total", formatMoney(c.total, "USD")], ["Pending", formatMoney(c.pending, "USD")], ["Approved", formatMoney(c.approved, "USD")], ["Paid", formatMoney(c.paid, "USD")]] as const).map(([label, value]) => (
          <div className="card stat" key={label}><div className="muted">{label}</div><div className="value" data-testid={`portal-${label.toLowerCase()}`}>{value}</div></div>
        ))}
      </div>
      <button type="button" className="secondary" onClick={logout}>Log out</button>
    </main>
  );
}
