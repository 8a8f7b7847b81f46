import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Deps } from "../ctx.js";
import { callerCtx, OPTIONAL_API_KEY_CALLER } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { errorResponses, htmlResponse } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { pageCsp } from "../http/security-headers.js";
import { confirmationPage, followActionLink, inspectActionLink, redirectOrigins } from "./action-link.js";
import { acceptOffer } from "./accept-offer.js";
import { declineOffer } from "./decline-offer.js";
import { payOfferByCard } from "./pay-offer-by-card.js";
import { createUpsellSession } from "./create-session.js";
import {
  AcceptOfferResponse,
  ActionParams,
  AnswerOfferBody,
  CreateSessionBody,
  CreateSessionResponse,
  CurrentOfferResponse,
  DeclineOfferResponse,
  GetSessionResponse,
  PayOfferByCardBody,
  SessionParams,
} from "./schemas.js";
import { getUpsellSession } from "./session.js";
import { getCurrentOffer } from "./current-offer.js";

/** Upsell answers carry session state and transaction ids: no cache may keep them, errors included. */
async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

const tags = ["upsell"];

// Thin HTTP layer: schemas in, one verb, response out (STYLE "Layout").
export function registerUpsellRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/upsell/create-session",
    {
      config: { idempotent: true, caller: OPTIONAL_API_KEY_CALLER },
      onRequest: noStore,
      schema: {
        tags,
        summary: "Create an upsell session for a completed order (Bearer API key of the order's brand with upsell:write, except on orders paid in demo mode)",
        body: CreateSessionBody,
        response: { 200: CreateSessionResponse, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => createUpsellSession({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.post(
    "/api/upsell/accept",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: { tags, summary: "Accept an offer: one-click charge of the saved payment method", body: AnswerOfferBody, response: { 200: AcceptOfferResponse, ...errorResponses(400, 402, 404, 409, 422, 429, 502, 503) } },
    },
    async (request) => acceptOffer({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.post(
    "/api/upsell/pay-with-card",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: {
        tags,
        summary: "Pay an offer with another card after its one-click charge was refused (not in SPEC)",
        body: PayOfferByCardBody,
        response: { 200: AcceptOfferResponse, ...errorResponses(400, 402, 404, 409, 422, 429, 502, 503) },
      },
    },
    async (request) => payOfferByCard({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.post(
    "/api/upsell/decline",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: { tags, summary: "Decline an offer", body: AnswerOfferBody, response: { 200: DeclineOfferResponse, ...errorResponses(400, 404, 409, 422) } },
    },
    async (request) => declineOffer({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.get(
    "/api/upsell/session/:id",
    { onRequest: noStore, schema: { tags, summary: "An upsell session's state", params: SessionParams, response: { 200: GetSessionResponse, ...errorResponses(400, 404) } } },
    async (request) => getUpsellSession({ ctx: ctxOf(deps, request), input: request.params }),
  );

  app.get(
    "/api/upsell/session/:id/offer",
    { onRequest: noStore, schema: { tags, summary: "The current offer of a session, for the hosted upsell page (not in SPEC)", params: SessionParams, response: { 200: CurrentOfferResponse, ...errorResponses(400, 404) } } },
    async (request) => getCurrentOffer({ ctx: ctxOf(deps, request), input: request.params }),
  );

  // CONTRACT §9 action links. Their own scope, so the HTML form's urlencoded body is accepted here only.
  app.register(async (scope) => {
    const links = scope.withTypeProvider<TypeBoxTypeProvider>();
    // The form carries nothing we read: the path says what to do.
    links.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 4096 }, (_request, _body, done) => done(null, {}));
    links.addHook("onRequest", async (_request, reply) => {
      reply.header("cache-control", "no-store");
      reply.header("referrer-policy", "no-referrer");
    });
    const redirect = { description: "To the next offer, the hosted upsell page, the success URL or /success?error=…" };

    links.get(
      "/upsell/action/:action/:sessionId",
      { schema: { tags, summary: "Action link (acts only on a user-activated navigation; otherwise a confirmation page)", params: ActionParams, response: { 200: htmlResponse("Confirmation page (HTML)"), 302: Type.Null(redirect) } } },
      async (request, reply) => {
        const ctx = ctxOf(deps, request);
        // A link preview, mail scanner or crawler never sends Sec-Fetch-User: ?1; it must not charge.
        if (request.method === "GET" && request.headers["sec-fetch-user"] === "?1") {
          const { location } = await followActionLink({ ctx, input: request.params });
          return reply.redirect(location, 302);
        }
        const step = await inspectActionLink({ ctx, input: request.params });
        if (step.kind === "redirect") return reply.redirect(step.location, 302);
        reply.header("x-robots-tag", "noindex, nofollow").header("content-security-policy", pageCsp(deps.config, { formAction: redirectOrigins(step.session) }));
        return reply.type("text/html; charset=utf-8").send(confirmationPage(request.params.action, step.session, step.offer));
      },
    );

    links.post(
      "/upsell/action/:action/:sessionId",
      { schema: { tags, summary: "Action link form: always acts", params: ActionParams, response: { 303: Type.Null(redirect) } } },
      async (request, reply) => {
        const { location } = await followActionLink({ ctx: ctxOf(deps, request), input: request.params });
        return reply.redirect(location, 303);
      },
    );
  });
}
