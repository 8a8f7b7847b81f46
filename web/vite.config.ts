import { join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
// @ts-expect-error a plain .mjs build script (scripts/compress-assets.mjs), no type declarations
import { compressAssets } from "../scripts/compress-assets.mjs";

// Two entries: the checkout page (the storefront, kept small: test/web/budget.unit.test.ts) and the
// application (upsell, success, login, admin). Built into web/dist, served by src/pages/routes.ts.
const root = fileURLToPath(new URL(".", import.meta.url));

/** After the bundle is written: brotli and gzip copies of each asset, served pre-compressed (docs/web.md). */
const precompress = (): Plugin => ({
  name: "precompress-assets",
  apply: "build",
  closeBundle() {
    compressAssets(join(root, "dist/assets"));
  },
});

export default defineConfig({
  root,
  base: "/",
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    rollupOptions: {
      input: { checkout: `${root}checkout.html`, app: `${root}index.html` },
      output: {
        // React is most of the bytes and changes only with an upgrade: one chunk of its own, cached
        // across deploys and shared by both entries; the pages' own code stays in small chunks.
        manualChunks: (id) => (/[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/.test(id) ? "react" : undefined),
      },
    },
  },
});
