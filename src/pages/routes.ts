import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import type { Deps } from "../ctx.js";
import { ctxOf } from "../http/ctx.js";
import { PAGES_STYLESHEET } from "../lib/html.js";
import { errorResponses, htmlResponse } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { getOrderConfirmation, getOrderConfirmationByToken } from "./order-confirmation.js";
import { ConfirmationByTokenBody, ConfirmationQuery, ConfirmationReply } from "./schemas.js";
import { loadShells, WEB_DIST } from "./shells.js";

const tags = ["pages"];
const html = { 200: htmlResponse("The page (HTML); the browser application renders it") };
/** Hashed file names (Vite): a changed file is a new URL, so browsers may keep each one for a year. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;
const FAVICON_MAX_AGE_MS = 24 * 3600 * 1000;

/**
 * CONTRACT §6: the pages answer 200 HTML (the single-page application's shell; the checkout page
 * has its own smaller entry). Their data comes only through the API. Shells and assets are not
 * counted by the rate limit (they are static, and one page load fetches several of them), but they
 * carry its headers like every response (src/http/rate-limit.ts).
 */
export async function registerWebRoutes(app: App, deps: Deps): Promise<void> {
  const shells = loadShells();
  if (!shells.built) deps.log.warn(`web front end not built (${WEB_DIST} missing): pages say so; run npm run build`);

  // preCompressed: the build writes `.br` and `.gz` beside each asset (scripts/compress-assets.mjs);
  // send() picks the one the client accepts, falls back to the plain file, and adds Vary: Accept-Encoding.
  await app.register(fastifyStatic, { root: join(WEB_DIST, "assets"), serve: false, preCompressed: true });
  app.get("/assets/*", { config: { rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    const file = (request.params as { "*": string })["*"];
    // send() writes `Cache-Control: public, max-age=31536000, immutable` from these two.
    return reply.sendFile(file, { maxAge: ASSET_MAX_AGE_MS, immutable: true });
  });
  // The favicon (web/public/favicon.svg, linked from both entries): browsers also ask /favicon.ico
  // on their own, so that path answers the same SVG. Not hashed: cached for a day.
  for (const url of ["/favicon.svg", "/favicon.ico"]) {
    app.get(url, { config: { rateLimit: false }, schema: { hide: true } }, async (_request, reply) => {
      reply.type("image/svg+xml");
      return reply.sendFile("favicon.svg", WEB_DIST, { maxAge: FAVICON_MAX_AGE_MS, immutable: false });
    });
  }

  // The server-written pages' stylesheet (web/public/pages.css; src/lib/html.ts htmlPage): not hashed, cached for a day.
  app.get(PAGES_STYLESHEET, { config: { rateLimit: false }, schema: { hide: true } }, async (_request, reply) => {
    reply.type("text/css; charset=utf-8");
    return reply.sendFile("pages.css", WEB_DIST, { maxAge: FAVICON_MAX_AGE_MS, immutable: false });
  });

  // The success page's data (docs/web.md "Success page"): answered only with the buyer's proof.
  app.get(
    "/api/checkout/confirmation",
    {
      schema: {
        tags: ["checkout"],
        summary: "What the success page shows: the order, each charge and whether a receipt is mailed (not in SPEC; needs transactionId or sessionId)",
        querystring: ConfirmationQuery,
        response: { 200: ConfirmationReply, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getOrderConfirmation({ ctx: ctxOf(deps, request), input: request.query });
    },
  );

  // Issue 36: the checkout page's way back after paying (the checkout token is the proof, in the body).
  app.post(
    "/api/checkout/confirmation",
    {
      schema: {
        tags: ["checkout"],
        summary: "The confirmation of a paid checkout, for its checkout token: what the checkout page shows when the buyer comes back after paying (not in SPEC)",
        body: ConfirmationByTokenBody,
        response: { 200: ConfirmationReply, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getOrderConfirmationByToken({ ctx: ctxOf(deps, request), input: request.body });
    },
  );

  const send = (reply: FastifyReply, page: string) => reply.header("cache-control", "no-cache").type("text/html; charset=utf-8").send(page);

  // The path carries the checkout token (a bearer credential): no Referer may leak it to the
  // product image's host or anywhere else, and no search engine may keep it.
  app.get(
    "/checkout/*",
    { config: { rateLimit: false }, schema: { tags, summary: "Checkout page for a checkout token (/checkout/<token>)", response: html } },
    async (_request, reply) => {
      reply.header("referrer-policy", "no-referrer").header("x-robots-tag", "noindex, nofollow");
      return send(reply, shells.checkout);
    },
  );

  const appPage = (url: string, summary: string) =>
    app.get(url, { config: { rateLimit: false }, schema: { tags, summary, response: html } }, async (_request, reply) => {
      reply.header("referrer-policy", "same-origin");
      return send(reply, shells.app);
    });
  appPage("/upsell/:sessionId", "Upsell offer page of a session");
  appPage("/success", "Order confirmation page (also /success?error=session_not_found|session_expired)");
  appPage("/login", "Sign-in page: password, magic link, social sign-in, 2FA code step (/login?step=2fa&userId=…)");
  appPage("/portal", "Salesperson portal: sign-in and the sums of the salesperson's commissions");
  appPage("/admin", "Administration back office");
  appPage("/admin/*", "Administration back office (client-side routes)");
}
