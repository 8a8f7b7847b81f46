import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where `vite build` writes the front end (web/vite.config.ts). Resolved from this module so it is
 * the same from src/pages (tests, tsx) and dist/pages (npm start): both sit two levels below the root.
 */
export const WEB_DIST = fileURLToPath(new URL("../../web/dist/", import.meta.url));

/** The two HTML shells: the checkout page has its own small entry, every other page is the app. */
export interface Shells {
  checkout: string;
  app: string;
  /** false when the front end was never built (a shell then says how to build it). */
  built: boolean;
}

const notBuilt = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Front end not built</title></head>
<body><main><h1>The web front end is not built</h1><p>Run <code>npm run build</code> (npm install runs it) and restart.</p></main></body></html>`;

/** Read once at start-up: the shells change only with a new build, which comes with a restart. */
export function loadShells(dir = WEB_DIST): Shells {
  const checkout = join(dir, "checkout.html");
  const app = join(dir, "index.html");
  if (!existsSync(checkout) || !existsSync(app)) return { checkout: notBuilt, app: notBuilt, built: false };
  return { checkout: readFileSync(checkout, "utf8"), app: readFileSync(app, "utf8"), built: true };
}
