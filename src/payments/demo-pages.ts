import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { htmlResponse } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { escapeHtml, htmlPage } from "../lib/html.js";

/**
 * The demo providers' own pages (the bank's 3-D Secure page, the store's checkout): plain HTML
 * forms served by the service, as a provider's test mode would serve them. Their own scope, so an
 * HTML form's urlencoded body is accepted here only; never cached, never indexed, no Referer.
 */
export function registerDemoPages(app: App, register: (pages: App) => void): void {
  app.register(async (scope) => {
    const pages = scope.withTypeProvider<TypeBoxTypeProvider>();
    pages.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 8192 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    pages.addHook("onRequest", async (_request, reply) => {
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer").header("x-robots-tag", "noindex, nofollow");
    });
    register(pages as unknown as App);
  });
}

/** The OpenAPI answer of a demo page. */
export const htmlAnswer = htmlResponse;

export const sendPage = (reply: FastifyReply, status: number, title: string, body: string) => reply.code(status).type("text/html; charset=utf-8").send(htmlPage(title, body));

/** The page for a link that is not (or no longer) valid: nothing was done. */
export const sendGone = (reply: FastifyReply, text: string) => sendPage(reply, 404, "Not found", `<h1>This page is not available</h1><p>${escapeHtml(text)}</p>`);
