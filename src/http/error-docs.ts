import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "./error-codes.js";
import { ERROR_DOCS_PATH } from "./errors.js";

// GET /docs/errors: the page every error body's `docUrl` points into, one anchor per code of the
// catalogue (code, status, meaning, fix). Plain server-rendered HTML with nothing to load and nothing
// to run, so its Content-Security-Policy allows nothing at all.

const PAGE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** The catalogue's one-liners mark names with backticks, as the docs do. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");

export function renderErrorDocs(): string {
  const entries = Object.entries(ERROR_CODES).map(
    ([code, entry]) => `<section id="${code}">
<h2><a href="#${code}">${code}</a></h2>
<dl>
<dt>Status</dt><dd>${entry.status}</dd>
<dt>Default text</dt><dd><code>${escapeHtml(entry.message)}</code></dd>
<dt>Meaning</dt><dd>${inline(entry.meaning)}</dd>
<dt>What to do</dt><dd>${inline(entry.fix)}</dd>
</dl>
</section>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error codes</title>
</head>
<body>
<main>
<h1>Error codes</h1>
<p>Every error answer is JSON: <code>{ "error", "code", "details", "requestId", "docUrl" }</code>. <code>code</code> is one of the codes below and never changes for a case; <code>error</code> is a text for people and may change. <code>details</code> names the member or the reason when there is one. <code>requestId</code> is the answer's <code>X-Request-Id</code>: quote it to support. <code>docUrl</code> links to the code's entry on this page.</p>
<nav><ul>
${Object.keys(ERROR_CODES)
  .map((code) => `<li><a href="#${code}">${code}</a></li>`)
  .join("\n")}
</ul></nav>
${entries.join("\n")}
</main>
</body>
</html>
`;
}

export function registerErrorDocs(app: FastifyInstance): void {
  const page = renderErrorDocs();
  app.get(ERROR_DOCS_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return reply.header("content-security-policy", PAGE_CSP).header("cache-control", "public, max-age=300").type("text/html; charset=utf-8").send(page);
  });
}
