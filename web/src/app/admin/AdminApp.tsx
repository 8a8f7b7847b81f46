import { useEffect, useState, type MouseEvent } from "react";
import { api, ApiError } from "../../shared/api";
import { navigate } from "../router";
import { AuditPage } from "./AuditPage";
import { CommissionsPage } from "./CommissionsPage";
import { DashboardPage } from "./DashboardPage";
import { DomainsPage } from "./DomainsPage";
import { MarketingPage } from "./MarketingPage";
import { SettingsPage } from "./SettingsPage";
import { WebhooksPage } from "./WebhooksPage";
import { ApiKeysPage } from "./ApiKeysPage";
import { LinksPage, SalespeoplePage } from "./SalesPages";
import { SecurityPage } from "./SecurityPage";
import { TenantsPage, UsersPage } from "./DirectoryPages";

export interface AuthState {
  authenticated: boolean;
  session: { userId: string; organizationId: string | null; brandId: string | null; email: string; name: string; role: string | null };
  organizations: { id: string; name: string; slug: string }[];
  brands: { id: string; name: string; slug: string }[];
}

/** Menu entries, one per page. */
const PAGES = [
  ["/admin", "Dashboard"],
  ["/admin/users", "Users"],
  ["/admin/organizations", "Organizations & brands"],
  ["/admin/commissions", "Commissions"],
  ["/admin/salespeople", "Salespeople"],
  ["/admin/links", "Checkout links"],
  ["/admin/settings", "Provider settings"],
  ["/admin/webhooks", "Webhooks"],
  ["/admin/api-keys", "API keys"],
  ["/admin/domains", "Domains"],
  ["/admin/marketing", "Marketing lists"],
  ["/admin/audit", "Audit log"],
  ["/admin/security", "Two-factor authentication"],
] as const;

export function AdminApp({ path }: { path: string }) {
  const [auth, setAuth] = useState<AuthState | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<AuthState>("/api/admin/auth")
      .then(setAuth)
      .catch((e) => {
        if (e instanceof ApiError && e.status === 401) location.assign("/login");
      });
  }, [version]);
  if (!auth) return <main className="narrow" aria-busy="true"><p>Loading…</p></main>;

  const switchTo = async (kind: "org" | "brand", id: string) => {
    await api(`/api/admin/auth/switch-${kind}`, { body: kind === "org" ? { organizationId: id } : { brandId: id } });
    setVersion((v) => v + 1);
  };
  const logout = async () => {
    await api("/api/admin/auth", { method: "DELETE" });
    location.assign("/login");
  };
  const go = (event: MouseEvent<HTMLAnchorElement>, to: string) => {
    event.preventDefault();
    navigate(to);
  };
  // A switch remounts the page (its data belongs to the old scope); a refetch of the menu alone does not.
  const key = `${auth.session.organizationId}:${auth.session.brandId}`;
  const page = path.replace(/\/$/, "") || "/admin";

  return (
    <div className="admin">
      <nav aria-label="Administration">
        <p><strong>{auth.session.name}</strong><br /><span>{auth.session.email}</span></p>
        <label htmlFor="org-switch">Organization</label>
        <select id="org-switch" value={auth.session.organizationId ?? ""} onChange={(e) => switchTo("org", e.target.value)}>
          {auth.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
        </select>
        <label htmlFor="brand-switch">Brand</label>
        <select id="brand-switch" value={auth.session.brandId ?? ""} onChange={(e) => switchTo("brand", e.target.value)}>
          {auth.brands.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
        </select>
        {PAGES.map(([to, text]) => (
          <a key={to} href={to} aria-current={page === to ? "page" : undefined} onClick={(e) => go(e, to)}>{text}</a>
        ))}
        <p><button type="button" className="secondary" onClick={logout}>Log out</button></p>
      </nav>
      <main className="content" key={key}>
        {page === "/admin" && <DashboardPage />}
        {page === "/admin/users" && <UsersPage auth={auth} />}
        {page === "/admin/organizations" && <TenantsPage auth={auth} onChange={() => setVersion((v) => v + 1)} />}
        {page === "/admin/commissions" && <CommissionsPage />}
        {page === "/admin/salespeople" && <SalespeoplePage />}
        {page === "/admin/links" && <LinksPage />}
        {page === "/admin/settings" && <SettingsPage />}
        {page === "/admin/webhooks" && <WebhooksPage />}
        {page === "/admin/api-keys" && <ApiKeysPage />}
        {page === "/admin/domains" && <DomainsPage />}
        {page === "/admin/marketing" && <MarketingPage />}
        {page === "/admin/audit" && <AuditPage />}
        {page === "/admin/security" && <SecurityPage />}
        {!PAGES.some(([to]) => to === page) && <h1>Page not found</h1>}
      </main>
    </div>
  );
}
