import { useEffect } from "react";
import { createRoot } from "react-dom/client";
import "../shared/base.css";
import "./app.css";
import { AdminApp } from "./admin/AdminApp";
import { LoginPage } from "./LoginPage";
import { PortalPage } from "./PortalPage";
import { usePath } from "./router";
import { SuccessPage } from "./SuccessPage";
import { UpsellPage } from "./UpsellPage";

/** The tab's title per page (the pages themselves may refine it). */
function titleOf(path: string): string {
  if (path.startsWith("/upsell/")) return "A special offer for your order";
  if (path === "/success") return "Order confirmed";
  if (path === "/login") return "Sign in";
  if (path === "/portal") return "Salesperson portal";
  if (path === "/admin" || path.startsWith("/admin/")) return "Administration";
  return "Page not found";
}

function App() {
  const { path, search } = usePath();
  useEffect(() => {
    document.title = titleOf(path);
  }, [path]);
  const upsell = path.match(/^\/upsell\/([^/]+)\/?$/);
  if (upsell) return <UpsellPage sessionId={decodeURIComponent(upsell[1])} />;
  if (path === "/success") return <SuccessPage search={search} />;
  if (path === "/login") return <LoginPage search={search} />;
  if (path === "/portal") return <PortalPage />;
  if (path === "/admin" || path.startsWith("/admin/")) return <AdminApp path={path} />;
  return (
    <main className="narrow">
      <h1>Page not found</h1>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
