import { Type } from "typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Deps } from "../ctx.js";
import { callerCtx, OPTIONAL_API_KEY_CALLER } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { completeCheckout } from "./complete.js";
import { generateToken } from "./generate-token.js";
import { getPaymentToken } from "./get-payment-token.js";
import { initializeCheckout } from "./initialize.js";
import { payCheckout } from "./pay.js";
import { checkoutProviders } from "./providers.js";
import { resolveShortLink } from "./resolve-short-link.js";
import { htmlErrorsForBrowsers } from "../pages/error-pages.js";
import {
  CompleteBody,
  CompleteResponse,
  GenerateTokenBody,
  GenerateTokenResponse,
  GetPaymentTokenBody,
  GetPaymentTokenResponse,
  InitializeBody,
  InitializeResponse,
  CheckoutProvidersBody,
  CheckoutProvidersResponse,
  PayBody,
  PayResponse,
  ShortLinkParams,
} from "./schemas.js";

/** Answers carrying payment method tokens must not be cached; set before the handler so errors carry it too. */
async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

// Thin HTTP layer: schemas in, one verb, response out (STYLE "Layout").
export function registerCheckoutRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/token/generate",
    {
      config: { idempotent: true },
      schema: {
        tags: ["checkout"],
        summary: "Generate a demo checkout token and short link (development and testing; 404 in live mode)",
        body: GenerateTokenBody,
        response: { 200: GenerateTokenResponse, ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request) => generateToken({ ctx: ctxOf(deps, request), input: request.body ?? {} }),
  );

  app.get(
    "/c/:code",
    {
      schema: {
        tags: ["checkout"],
        summary: "Short checkout link: redirects to /checkout/<token>; unknown or rate limited, an HTML page for browsers (Accept: text/html), JSON otherwise",
        params: ShortLinkParams,
        response: { 302: Type.Null({ description: "Redirect to /checkout/<token>" }), ...errorResponses(400, 404, 429) },
      },
      // People open these links: a browser gets a readable page, an API client the JSON error.
      onSend: htmlErrorsForBrowsers,
    },
    async (request, reply) => {
      const { location } = await resolveShortLink({ ctx: ctxOf(deps, request), input: request.params });
      return reply.redirect(location, 302);
    },
  );

  app.post(
    "/api/checkout/initialize",
    {
      config: { idempotent: true, missingFields: { fields: ["token", "provider"], message: "Missing token or provider" } },
      schema: {
        tags: ["checkout"],
        summary: "Initialize a checkout with a payment provider",
        body: InitializeBody,
        response: { 200: InitializeResponse, ...errorResponses(400, 401, 409, 410, 422, 502, 503) },
      },
    },
    async (request, reply) => {
      const result = await initializeCheckout({ ctx: ctxOf(deps, request), input: request.body });
      // The client secret authorises confirming the payment: no cache may keep it.
      if (result.clientSecret) reply.header("cache-control", "no-store");
      return result;
    },
  );

  app.post(
    "/api/checkout/providers",
    {
      schema: {
        tags: ["checkout"],
        summary: "The payment providers a checkout token allows (CONTRACT §4), card-taking ones first: the page initializes with the first",
        body: CheckoutProvidersBody,
        response: { 200: CheckoutProvidersResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => checkoutProviders({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.post(
    "/api/checkout/pay",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: {
        tags: ["checkout"],
        summary:
          "Pay an initialized checkout by card: the checkout's provider, or the brand's routed providers with a cascade to the next after a soft decline (docs/orchestration.md); a 3-D Secure step answers requires_action",
        body: PayBody,
        response: { 200: PayResponse, ...errorResponses(400, 402, 404, 409, 422, 429, 502, 503) },
      },
    },
    async (request) => payCheckout({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.post(
    "/api/checkout/complete",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: {
        tags: ["checkout"],
        summary: "Complete a checkout after payment: verifies the payment and creates the order",
        body: CompleteBody,
        response: { 200: CompleteResponse, ...errorResponses(400, 404, 409, 410, 422, 502, 503) },
      },
    },
    async (request) => completeCheckout({ ctx: ctxOf(deps, request), input: request.body }),
  );

  app.post(
    "/api/checkout/get-payment-token",
    {
      config: { caller: OPTIONAL_API_KEY_CALLER },
      onRequest: noStore,
      schema: {
        tags: ["checkout"],
        summary: "The saved payment method token of a completed order (Bearer API key of the order's brand with upsell:write, except on orders paid in demo mode)",
        body: GetPaymentTokenBody,
        response: { 200: GetPaymentTokenResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getPaymentToken({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
