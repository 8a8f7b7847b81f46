import { lazy, Suspense, useEffect, useState, type MouseEvent, type ReactElement } from "react";
import type { AuthStateReply } from "../../shared/api-types";
import { api, ApiError } from "../../shared/api";
import { navigate } from "../router";
import { chooseMode, forgetLearnedMode, useMode } from "./mode";
import { AuditPage } from "./AuditPage";
import { CommissionsPage } from "./CommissionsPage";
import { DashboardPage } from "./DashboardPage";
import { DomainsPage } from "./DomainsPage";
import { MarketingPage } from "./MarketingPage";
import { OrdersPage } from "./OrdersPage";
import { SettingsPage } from "./SettingsPage";
import { WebhooksPage } from "./WebhooksPage";
import { FunnelsPage } from "./FunnelsPage";
import { RoutingPage } from "./RoutingPage";
import { ApiKeysPage } from "./ApiKeysPage";
import { LinksPage, SalespeoplePage } from "./SalesPages";
import { SecurityPage } from "./SecurityPage";
import { TenantsPage, UsersPage } from "./DirectoryPages";

type AuthState = AuthStateReply;

// Its own chunk: the chart library (uPlot) is fetched when this page opens, never by the other pages.
const ApprovalsPage = lazy(() => import("./ApprovalsPage").then((m) => ({ default: m.ApprovalsPage })));

/**
 * The administration pages: one entry per page drives both the menu and what is rendered, so a
 * page cannot be in one and missing from the other.
 */
const ROUTES: readonly { path: string; title: string; render: (props: PageProps) => ReactElement }[] = [
  { path: "/admin", title: "Dashboard", render: () => <DashboardPage /> },
  { path: "/admin/orders", title: "Orders", render: () => <OrdersPage /> },
  { path: "/admin/approvals", title: "Approvals", render: () => <Suspense fallback={<p aria-busy="true">Loading…</p>}><ApprovalsPage /></Suspense> },
  { path: "/admin/users", title: "Users", render: ({ auth }) => <UsersPage auth={auth} /> },
  { path: "/admin/organizations", title: "Organizations & brands", render: ({ auth, refresh }) => <TenantsPage auth={auth} onChange={refresh} /> },
  { path: "/admin/commissions", title: "Commissions", render: () => <CommissionsPage /> },
  { path: "/admin/salespeople", title: "Salespeople", render: () => <SalespeoplePage /> },
  { path: "/admin/links", title: "Payment links", render: () => <LinksPage /> },
  { path: "/admin/funnels", title: "Upsell funnels", render: () => <FunnelsPage /> },
  { path: "/admin/settings", title: "Provider settings", render: () => <SettingsPage /> },
  { path: "/admin/routing", title: "Payment routing", render: () => <RoutingPage /> },
  { path: "/admin/webhooks", title: "Webhooks", render: () => <WebhooksPage /> },
  { path: "/admin/api-keys", title: "API keys", render: () => <ApiKeysPage /> },
  { path: "/admin/domains", title: "Domains", render: () => <DomainsPage /> },
  { path: "/admin/marketing", title: "Marketing lists", render: () => <MarketingPage /> },
  { path: "/admin/audit", title: "Audit log", render: () => <AuditPage /> },
  { path: "/admin/security", title: "Two-factor authentication", render: () => <SecurityPage /> },
];

interface PageProps {
  auth: AuthState;
  /** Fetches the session again (after a change to the organizations or brands the menu lists). */
  refresh: () => void;
}

export function AdminApp({ path }: { path: string }) {
  const livemode = useMode();
  const [auth, setAuth] = useState<AuthState | null>(null);
  const [version, setVersion] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);
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
    forgetLearnedMode();
    setVersion((v) => v + 1);
  };
  const logout = async () => {
    await api("/api/admin/auth", { method: "DELETE" });
    location.assign("/login");
  };
  const go = (event: MouseEvent<HTMLAnchorElement>, to: string) => {
    event.preventDefault();
    setMenuOpen(false);
    navigate(to);
  };
  // A switch remounts the page (its data belongs to the old scope); a refetch of the menu alone does not.
  const key = `${auth.session.organizationId}:${auth.session.brandId}`;
  const page = path.replace(/\/$/, "") || "/admin";
  // A page's own addresses below it (an order: /admin/orders/<id>, issue 36) render that page.
  const route = ROUTES.find((r) => r.path === page) ?? ROUTES.find((r) => r.path !== "/admin" && page.startsWith(`${r.path}/`));

  return (
    <div className="admin">
      <nav aria-label="Administration">
        <div className="menu-bar">
          <strong>{route?.title ?? "Administration"}</strong>
          {/* Phones only (CSS): the menu is taller than the screen, so it folds behind this button. */}
          <button type="button" className="secondary menu-toggle" aria-expanded={menuOpen} aria-controls="admin-menu" onClick={() => setMenuOpen((open) => !open)}>
            Menu
          </button>
        </div>
        <div id="admin-menu" className="admin-menu" data-open={menuOpen}>
          <p><strong>{auth.session.name}</strong><br /><span>{auth.session.email}</span></p>
          <label htmlFor="org-switch">Organization</label>
          <select id="org-switch" value={auth.session.organizationId ?? ""} onChange={(e) => switchTo("org", e.target.value)}>
            {auth.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
          </select>
          <label htmlFor="brand-switch">Brand</label>
          <select id="brand-switch" value={auth.session.brandId ?? ""} onChange={(e) => switchTo("brand", e.target.value)}>
            {auth.brands.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
          </select>
          <fieldset className="mode-switch">
            <legend>Data shown</legend>
            <label><input type="radio" name="mode" value="live" checked={livemode === true} onChange={() => chooseMode(true)} /> Live</label>
            <label><input type="radio" name="mode" value="test" checked={livemode === false} onChange={() => chooseMode(false)} /> Test</label>
          </fieldset>
          {ROUTES.map(({ path: to, title }) => (
            <a key={to} href={to} aria-current={route?.path === to ? "page" : undefined} onClick={(e) => go(e, to)}>{title}</a>
          ))}
          <p><button type="button" className="secondary" onClick={logout}>Log out</button></p>
        </div>
      </nav>
      <main className="content" key={key}>
        {livemode === false && (
          <p className="test-banner" role="status" data-testid="test-banner">
            <strong>TEST</strong> You are viewing test data: orders paid with demo cards or sandbox credentials. No real money moved.
          </p>
        )}
        {route ? route.render({ auth, refresh: () => setVersion((v) => v + 1) }) : <h1>Page not found</h1>}
      </main>
    </div>
  );
}
