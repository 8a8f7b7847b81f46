import { Type } from "typebox";
import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { errorResponses, htmlResponse } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { GenerateLinkBody, GenerateLinkReply, generateSalesLink } from "./generate-link.js";
import { CreatePaymentLinkBody, OpenPaymentLinkParams, PaymentLinkParams, PaymentLinkReply, PaymentLinksQuery, PaymentLinksReply } from "./payment-link-schemas.js";
import { createPaymentLink, disablePaymentLink, listPaymentLinks, openPaymentLink, unavailableLinkPage } from "./payment-links.js";

const PAYMENT_LINKS = ["Administration: payment links"];

export function registerLinkRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/admin/tools/generate-link",
    {
      config: { idempotent: true },
      schema: {
        tags: ["Administration: utilities"],
        summary: "Generate a checkout link with sales attribution for the session's brand (admin or owner; also in live mode)",
        body: GenerateLinkBody,
        response: { 200: GenerateLinkReply, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      return generateSalesLink({ ctx: callerCtx(deps, request), input: request.body });
    },
  );

  app.post(
    "/api/admin/payment-links",
    {
      config: { idempotent: true },
      schema: {
        tags: PAYMENT_LINKS,
        summary: "Create a lasting payment link of the session's brand (admin or owner; not in SPEC)",
        body: CreatePaymentLinkBody,
        response: { 200: PaymentLinkReply, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => createPaymentLink({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.get(
    "/api/admin/payment-links",
    {
      schema: {
        tags: PAYMENT_LINKS,
        summary: "The session brand's payment links of one mode, newest first (any role; not in SPEC)",
        querystring: PaymentLinksQuery,
        response: { 200: PaymentLinksReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listPaymentLinks({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.post(
    "/api/admin/payment-links/:id/disable",
    {
      schema: {
        tags: PAYMENT_LINKS,
        summary: "Disable a payment link: it answers 410 from now on (admin or owner; not in SPEC)",
        params: PaymentLinkParams,
        response: { 200: PaymentLinkReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => disablePaymentLink({ ctx: callerCtx(deps, request), input: request.params }),
  );

  // Public, counted by the rate limit like /c/<code>.
  app.get(
    "/l/:code",
    {
      schema: {
        tags: ["checkout"],
        summary: "Open a payment link: redirects to /checkout/<fresh token>; 404 or 410 page when unknown, disabled or expired",
        params: OpenPaymentLinkParams,
        response: {
          302: Type.Null({ description: "Redirect to /checkout/<token>" }),
          404: htmlResponse("HTML page: link not found"),
          410: htmlResponse("HTML page: link no longer available"),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const opened = await openPaymentLink({ ctx: ctxOf(deps, request), input: request.params });
      // The location carries a bearer token: never cached, never sent on as a Referer.
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer").header("x-robots-tag", "noindex, nofollow");
      if (opened.kind === "checkout") return reply.redirect(opened.location, 302);
      return reply
        .code(opened.kind === "gone" ? 410 : 404)
        .type("text/html; charset=utf-8")
        .send(unavailableLinkPage(opened.kind));
    },
  );
}
