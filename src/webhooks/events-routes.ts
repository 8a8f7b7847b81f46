import type { Deps } from "../ctx.js";
import { callerCtx, MERCHANT_API_CALLER } from "../http/auth.js";
import { errorResponses, MERCHANT_API_TAG } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { eventBodySchema } from "../outbox/event-schemas.js";
import { EVENT_TYPES } from "../outbox/events.js";
import { getEvent, listEvents, redeliverEvent, triggerEvent } from "./events.js";
import { EventIdParams, EventListQuery, EventListReply, EventView, RedeliverBody, RedeliverReply, TriggerBody } from "./events-schemas.js";
import type { WebhookWorker } from "./worker.js";

const tags = [MERCHANT_API_TAG];
const security = [{ merchantApiKey: [] }];

/**
 * The events API (issue 33, docs/webhooks.md "Events API") on `/api/v1`, with a key: its brand's
 * events of its mode for 30 days, a new delivery of one to an endpoint, and test events.
 */
export function registerEventRoutes(app: App, deps: Deps, worker: WebhookWorker): void {
  app.get(
    "/api/v1/events",
    {
      config: { caller: MERCHANT_API_CALLER },
      schema: {
        tags,
        security,
        summary: "The key's brand's events of the key's mode, newest first, 30 days (scope events:read); `waitSeconds` long-polls for newer ones",
        querystring: EventListQuery,
        response: { 200: EventListReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      // A long poll ends as soon as the caller goes away.
      const gone = new AbortController();
      request.raw.once("close", () => gone.abort());
      return listEvents({ ctx: callerCtx(deps, request), input: { query: request.query, signal: gone.signal } });
    },
  );

  app.get(
    "/api/v1/events/:id",
    {
      config: { caller: MERCHANT_API_CALLER },
      schema: {
        tags,
        security,
        summary: "One event of the key's brand and mode (scope events:read); another brand's or mode's, or one older than 30 days, is 404",
        params: EventIdParams,
        response: { 200: EventView, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getEvent({ ctx: callerCtx(deps, request), input: request.params });
    },
  );

  app.post(
    "/api/v1/events/:id/redeliver",
    {
      config: { idempotent: true, caller: MERCHANT_API_CALLER },
      schema: {
        tags,
        security,
        summary: "Send the event again, as a new delivery, to a webhook endpoint of the key's brand, now (scope webhooks:write); `delivered` says whether the receiver took it",
        params: EventIdParams,
        body: RedeliverBody,
        response: { 200: RedeliverReply, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => redeliverEvent({ ctx: callerCtx(deps, request), input: { id: request.params.id, body: request.body }, worker }),
  );

  app.post(
    "/api/v1/events/trigger",
    {
      config: { idempotent: true, caller: MERCHANT_API_CALLER },
      schema: {
        tags,
        security,
        summary: "Make a test event of a type with sample data for the key's brand (scope webhooks:write; a test key only); delivered like any event",
        body: TriggerBody,
        response: { 201: EventView, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await triggerEvent({ ctx: callerCtx(deps, request), input: request.body })),
  );
}

/** OpenAPI 3.1 `webhooks`: one entry per event type, its body's schema (what a receiver gets). */
export function eventWebhooksDocument(): Record<string, { post: Record<string, unknown> }> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: `${type} event`,
          // checkout.created -> checkoutCreatedEvent
          operationId: `${type.replace(/\.(\w)/g, (_m: string, c: string) => c.toUpperCase())}Event`,
          description: "Sent to the brand's endpoints subscribed to it, signed Standard Webhooks style (headers webhook-id, webhook-timestamp, webhook-signature; docs/webhooks.md). Answer 2xx.",
          requestBody: { required: true, content: { "application/json": { schema: eventBodySchema(type) } } },
          responses: { "2XX": { description: "Taken; any other answer is retried" } },
          // The receiver checks the signature headers; no credential of the receiver's API is sent.
          security: [],
        },
      },
    ]),
  );
}
