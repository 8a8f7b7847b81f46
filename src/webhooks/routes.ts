import type { FastifyRequest } from "fastify";
import { requireAdmin, ROLES } from "../admin/access.js";
import type { Deps } from "../ctx.js";
import type { OrganizationRole } from "../db/schema/index.js";
import { ctxOf } from "../http/ctx.js";
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
  EndpointsReply,
  SendReply,
} from "./schemas.js";
import type { WebhookWorker } from "./worker.js";

const TAGS = ["Administration: webhook endpoints"];

/** SPEC "Administration: webhook endpoints", plus the deliveries listing and resend (docs/webhooks.md). */
export function registerWebhookRoutes(app: App, deps: Deps, worker: WebhookWorker): void {
  const admin = (request: FastifyRequest, roles: readonly OrganizationRole[]) => {
    const scope = requireAdmin(request, roles);
    return { scope, ctx: ctxOf(deps, request, scope.actor) };
  };

  app.get(
    "/api/admin/webhooks",
    { schema: { tags: TAGS, summary: "The brand's endpoints (secrets masked), delivery stats and availableEvents (any role)", response: { 200: EndpointsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listEndpoints(admin(request, ROLES.session)),
  );

  app.post(
    "/api/admin/webhooks",
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        summary: "Add an endpoint (admin or owner); the response carries the full secret",
        body: CreateEndpointBody,
        response: { 200: CreateEndpointReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ success: true as const, ...(await createEndpoint({ ...admin(request, ROLES.adminOrOwner), input: request.body })) }),
  );

  app.post(
    "/api/admin/webhooks/:id/test",
    {
      schema: {
        tags: TAGS,
        summary: "Send a signed test payload to the endpoint now (admin or owner); `delivered` says whether the receiver took it",
        params: EndpointIdParams,
        response: { 200: SendReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => testEndpoint({ ...admin(request, ROLES.adminOrOwner), input: request.params, worker }),
  );

  app.delete(
    "/api/admin/webhooks/:id",
    { schema: { tags: TAGS, summary: "Delete an endpoint (admin or owner)", params: EndpointIdParams, response: { 200: DeleteEndpointReply, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => ({ success: true as const, ...(await deleteEndpoint({ ...admin(request, ROLES.adminOrOwner), input: request.params })) }),
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
    async (request) => listDeliveries({ ...admin(request, ROLES.session), input: { id: request.params.id, query: request.query } }),
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
    async (request) => resendDelivery({ ...admin(request, ROLES.adminOrOwner), input: request.params, worker }),
  );
}
