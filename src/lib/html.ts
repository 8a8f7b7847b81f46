/** Text or an attribute value for HTML the server writes itself (the demo providers' pages, action links). */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Where the server-written pages' stylesheet is served (web/public/pages.css, copied into web/dist by the
 * build; src/pages/routes.ts): their CSP (style-src 'self') refuses an inline <style>.
 */
export const PAGES_STYLESHEET = "/pages.css";

/** The <head> of a server-written page: charset, viewport, not indexed, the favicon and the stylesheet. */
export function pageHead(title: string): string {
  return `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${PAGES_STYLESHEET}">`;
}

/**
 * A small page (no script, no inline style) for the pages the service renders on the server: the demo
 * bank's 3-D Secure page, the demo store's checkout, the link pages. `body` is trusted HTML.
 */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head>${pageHead(title)}</head>
<body><main>${body}</main></body></html>
`;
}
