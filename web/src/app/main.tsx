import { createRoot } from "react-dom/client";
import "../shared/base.css";
import "./app.css";
import { AdminApp } from "./admin/AdminApp";
import { LoginPage } from "./LoginPage";
import { PortalPage } from "./PortalPage";
import { usePath } from "./router";
import { SuccessPage } from "./SuccessPage";
import { UpsellPage } from "./UpsellPage";

function App() {
  const { path, search } = usePath();
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
