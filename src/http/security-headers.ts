import type { FastifyInstance } from "fastify";
import type { Config } from "../config/index.js";

/**
 * The pages' Content-Security-Policy (issue 21 item 6). The built pages load only hashed files from
 * /assets (no inline script or style element: `npm run script-inventory` lists them and fails on an
 * inline one); React sets `style` through the CSSOM, which `style-src 'self'` allows. Images: product
 * images and brand logos are merchants' https URLs, the 2FA QR code a data: URL. The pages post no
 * form anywhere (every form is a fetch to the API), and leave only by navigation (hosted payment
 * page, success URL), which CSP does not govern.
 */
export function pageCsp(config: Pick<Config, "publicBaseUrl">, options: { formAction?: string[] } = {}): string {
  // On an http base URL (development, tests) http images are no mixed content: merchants' local pictures load.
  const images = config.publicBaseUrl.startsWith("https://") ? "img-src 'self' https: data:" : "img-src 'self' http: https: data:";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    images,
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    // A page whose form's answer redirects elsewhere names those origins (the upsell action link's confirmation).
    ["form-action 'self'", ...(options.formAction ?? [])].join(" "),
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** Swagger UI (/docs) styles its own elements with inline style attributes and loads its bundle from /docs/static. */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

/**
 * A page with nothing but text and the server-written pages' stylesheet (src/lib/html.ts): an error
 * page that replaced a JSON answer after this hook chose OTHER_CSP for it sets this one itself.
 */
export const STYLED_TEXT_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** JSON, assets and every other answer: nothing may run in them or frame them. */
export const OTHER_CSP = "default-src 'none'; frame-ancestors 'none'";

const DENY_ALL = "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), usb=()";
/** The pages that take money may use the Payment Request API (wallets); no other page may. */
const PAYMENT_PAGES = /^\/(checkout|upsell)\//;

/**
 * Security headers on every answer, pages and API alike, in one onSend hook. A route that set a
 * stricter Referrer-Policy keeps it (the checkout page: no-referrer, its path carries the token).
 */
export function registerSecurityHeaders(app: FastifyInstance, config: Pick<Config, "publicBaseUrl">): void {
  const hsts = config.publicBaseUrl.startsWith("https://") ? "max-age=31536000" : null;
  const page = pageCsp(config);
  app.addHook("onSend", async (request, reply, payload) => {
    const type = String(reply.getHeader("content-type") ?? "");
    const html = type.startsWith("text/html");
    const path = request.url;
    // A route that built its own (a form-action with its redirect targets) keeps it.
    if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", !html ? OTHER_CSP : path.startsWith("/docs") ? DOCS_CSP : page);
    reply.header("x-frame-options", "DENY");
    reply.header("x-content-type-options", "nosniff");
    if (!reply.hasHeader("referrer-policy")) reply.header("referrer-policy", "strict-origin-when-cross-origin");
    reply.header("permissions-policy", `${DENY_ALL}, payment=${html && PAYMENT_PAGES.test(path) ? "(self)" : "()"}`);
    if (hsts) reply.header("strict-transport-security", hsts);
    return payload;
  });
}
