import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, resendDelivery, testEndpoint } from "./endpoints.js";
import {
  CreateEndpointBody,
  CreateEndpointReply,
  DeleteEndpointReply,
  DeliveriesQuery,
  DeliveriesReply,
  DeliveryIdParams,
  EndpointIdParams,
  EndpointsQuery, EndpointsReply,
  SendReply,
} from "./schemas.js";
import type { WebhookWorker } from "./worker.js";

const TAGS = ["Administration: webhook endpoints"];

/** SPEC "Administration: webhook endpoints", plus the deliveries listing and resend (docs/webhooks.md). */
export function registerWebhookRoutes(app: App, deps: Deps, worker: WebhookWorker): void {
  app.get(
    "/api/admin/webhooks",
    {
      schema: {
        tags: TAGS,
        summary: "The brand's endpoints of one mode (secrets masked), delivery stats and availableEvents (any role)",
        querystring: EndpointsQuery,
        response: { 200: EndpointsReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listEndpoints({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.post(
    "/api/admin/webhooks",
    {
      // CONTRACT §40: the key names one endpoint; its answer (the secret) is never stored, a repeat is 409 naming the endpoint.
      config: { idempotent: true, showsSecret: true },
      schema: {
        tags: TAGS,
        summary: "Add an endpoint (admin or owner); the response carries the full secret",
        body: CreateEndpointBody,
        response: { 200: CreateEndpointReply, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request) => ({ success: true as const, ...(await createEndpoint({ ctx: callerCtx(deps, request), input: request.body })) }),
  );

  app.post(
    "/api/admin/webhooks/:id/test",
    {
      schema: {
        tags: TAGS,
        summary: "Send a signed test payload to the endpoint now (admin or owner); `delivered` says whether the receiver took it",
        params: EndpointIdParams,
        response: { 200: SendReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => testEndpoint({ ctx: callerCtx(deps, request), input: request.params, worker }),
  );

  app.delete(
    "/api/admin/webhooks/:id",
    { schema: { tags: TAGS, summary: "Delete an endpoint (admin or owner)", params: EndpointIdParams, response: { 200: DeleteEndpointReply, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => ({ success: true as const, ...(await deleteEndpoint({ ctx: callerCtx(deps, request), input: request.params })) }),
  );

  app.get(
    "/api/admin/webhooks/:id/deliveries",
    {
      schema: {
        tags: TAGS,
        summary: "The endpoint's deliveries, newest first, each with its attempts (any role)",
        params: EndpointIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listDeliveries({ ctx: callerCtx(deps, request), input: { id: request.params.id, query: request.query } }),
  );

  app.post(
    "/api/admin/webhooks/deliveries/:deliveryId/resend",
    {
      schema: {
        tags: TAGS,
        summary: "Send a finished delivery again now, same webhook-id (admin or owner)",
        params: DeliveryIdParams,
        response: { 200: SendReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => resendDelivery({ ctx: callerCtx(deps, request), input: request.params, worker }),
  );
}
