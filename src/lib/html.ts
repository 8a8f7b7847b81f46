/** Text or an attribute value for HTML the server writes itself (the demo providers' pages, action links). */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A small self-contained page (no script, inline CSS) for the pages the service renders on the
 * server: the demo bank's 3-D Secure page and the demo store's checkout. `body` is trusted HTML.
 */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<style>
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6;line-height:1.45}
main{max-width:28rem;margin:2rem auto;padding:1.25rem;background:#fff;border:1px solid #d1d5db;border-radius:.75rem}
h1{font-size:1.4rem;margin:0 0 .75rem}label{display:block;font-weight:600;font-size:.9rem;margin:.8rem 0 .25rem}
input{width:100%;box-sizing:border-box;font:inherit;padding:.55rem .65rem;border:1px solid #6b7280;border-radius:.4rem}
button{font:inherit;font-weight:600;border:0;border-radius:.45rem;padding:.65rem 1.1rem;cursor:pointer;background:#1d4ed8;color:#fff;margin-top:1rem}
button.secondary{background:#fff;color:#111827;border:1px solid #6b7280}
.row{display:flex;gap:.75rem}.row>*{flex:1}.muted{color:#4b5563}.amount{font-size:1.4rem;font-weight:700}
.error{color:#b91c1c;background:#fef2f2;border:1px solid #fecaca;border-radius:.4rem;padding:.6rem .8rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
</style></head>
<body><main>${body}</main></body></html>
`;
}
