import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Two entries: the checkout page (the storefront, kept small: test/web/budget.unit.test.ts) and the
// application (upsell, success, login, admin). Built into web/dist, served by src/web/routes.ts.
const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    rollupOptions: {
      input: { checkout: `${root}checkout.html`, app: `${root}index.html` },
    },
  },
});
