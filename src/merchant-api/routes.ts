import type { FastifyReply, FastifyRequest } from "fastify";
import { GetPaymentTokenBody, GetPaymentTokenResponse } from "../checkout/schemas.js";
import type { Deps } from "../ctx.js";
import { callerCtx, MERCHANT_API_CALLER } from "../http/auth.js";
import { errorResponses, MERCHANT_API_TAG } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createNamedFunnelSession, namedFunnelBody } from "../upsell/funnel/named-session.js";
import { CreateSessionBody, CreateSessionResponse } from "../upsell/schemas.js";
import { createMerchantCheckout, getMerchantCheckout } from "./checkouts.js";
import { createMerchantUpsellSession, getMerchantPaymentToken } from "./upsell.js";
import { CheckoutIdParams, CreateCheckoutBody, CreatedCheckout, MerchantCheckoutView } from "./schemas.js";

const tags = [MERCHANT_API_TAG];
const security = [{ merchantApiKey: [] }];

/** Merchant answers carry tokens: no cache may keep them, errors included. */
async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

/**
 * Issue 15: `/api/v1` for merchant servers, `Authorization: Bearer sk_…` only (a session cookie is no
 * key). The key is admitted on onRequest (http/auth.ts), before Idempotency-Key is looked at; each
 * verb starts with its scope (assertScope) and calls the same rules as its public counterpart, acting as the key.
 */
export function registerMerchantApiRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/v1/checkouts",
    {
      config: { idempotent: true, caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags,
        security,
        summary: "Create a checkout for the key's brand (scope checkouts:write); redirect the buyer to `url`",
        body: CreateCheckoutBody,
        response: { 201: CreatedCheckout, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await createMerchantCheckout({ ctx: callerCtx(deps, request), input: request.body });
      return reply.code(201).send(created);
    },
  );

  app.get(
    "/api/v1/checkouts/:id",
    {
      config: { caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags,
        security,
        summary: "A checkout of the key's brand and its payment state (scope checkouts:write or orders:read)",
        params: CheckoutIdParams,
        response: { 200: MerchantCheckoutView, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getMerchantCheckout({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.post(
    "/api/v1/upsell/sessions",
    {
      config: { idempotent: true, caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      // Issue 19: `{ originalOrderId, funnelId }` starts the session from a stored funnel (docs/funnels.md), answered before the SPEC body's schema.
      preValidation: async (request, reply) => {
        const named = namedFunnelBody(request.body);
        if (named) return reply.send(await createNamedFunnelSession({ ctx: callerCtx(deps, request), input: named }));
      },
      schema: {
        tags,
        security,
        summary: "Create an upsell session for an order of the key's brand (scope upsell:write); SPEC create-session body and answer, or `{ originalOrderId, funnelId }` to start a stored funnel",
        body: CreateSessionBody,
        response: { 200: CreateSessionResponse, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => createMerchantUpsellSession({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.post(
    "/api/v1/payment-tokens",
    {
      config: { caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags,
        security,
        summary: "The saved payment method token of an order of the key's brand (scope upsell:write); SPEC get-payment-token body and answer",
        body: GetPaymentTokenBody,
        response: { 200: GetPaymentTokenResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getMerchantPaymentToken({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
