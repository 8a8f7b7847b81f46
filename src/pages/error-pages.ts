import { STYLED_TEXT_CSP } from "../http/security-headers.js";
import { htmlPage } from "../lib/html.js";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Whether the client asked for a page rather than data: `text/html` listed in Accept with at least
 * the preference of `application/json` (browsers list text/html first; API clients send
 * application/json, `*\/*` or nothing, and keep getting JSON).
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    const part = accept
      .toLowerCase()
      .split(",")
      .map((p) => p.trim().split(";"))
      .find(([name]) => name!.trim() === type);
    if (!part) return -1;
    const param = part.slice(1).map((p) => p.trim()).find((p) => p.startsWith("q="));
    return param ? Number(param.slice(2)) || 0 : 1;
  };
  const html = q("text/html");
  return html > 0 && html >= q("application/json");
}

const PAGES: Record<number, (retryAfter: number | null) => { title: string; text: string }> = {
  404: () => ({ title: "Link not found", text: "This checkout link does not exist or has expired. Ask the shop for a new link." }),
  429: (seconds) => ({
    title: "Too many requests",
    text: `Too many requests came from your connection. Please try again in ${seconds ?? 60} ${(seconds ?? 60) === 1 ? "second" : "seconds"}.`,
  }),
};

/** A small, readable page for a browser (fixed texts only: nothing from the request is echoed). */
export function errorPage(status: number, retryAfter: number | null): string | null {
  const page = PAGES[status]?.(retryAfter);
  if (!page) return null;
  return htmlPage(page.title, `<h1>${page.title}</h1><p>${page.text}</p>`);
}

/**
 * Route onSend hook for links people open in a browser (`/c/<code>`): a 404 or 429 answer becomes an
 * HTML page with the same status (and Retry-After) when the client prefers HTML; JSON otherwise.
 * Runs for answers of the route's handler, its error handler and the rate limit's onRequest reply alike.
 */
export async function htmlErrorsForBrowsers(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!prefersHtml(request.headers.accept)) return payload;
  const retryAfter = Number(reply.getHeader("retry-after"));
  const page = errorPage(reply.statusCode, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  if (!page) return payload;
  // The security headers' hook saw JSON and chose OTHER_CSP (no stylesheet): this page's own is set.
  reply.header("content-type", "text/html; charset=utf-8").header("cache-control", "no-store").header("content-security-policy", STYLED_TEXT_CSP);
  reply.removeHeader("content-length");
  return page;
}
