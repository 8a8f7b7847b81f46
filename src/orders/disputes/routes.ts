import type { Deps } from "../../ctx.js";
import { callerCtx } from "../../http/auth.js";
import { noStore } from "../../http/no-store.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { OrderIdParams } from "../schemas.js";
import { acceptDispute, submitDisputeEvidence } from "./answer.js";
import { DisputeParams, DisputeReply, EvidenceBody, SimulateDisputeBody } from "./schemas.js";
import { simulateDispute } from "./simulate.js";

const ADMIN_TAG = "Administration: orders";

/** Issue 17: the merchant's answers to a dispute of one of the order's charges (admin or owner, the session's brand). */
export function registerDisputeRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/admin/orders/:id/disputes/:disputeId/accept",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Accept a dispute: the disputed money is given up, at the provider where its API allows (admin or owner)",
        params: DisputeParams,
        response: { 200: DisputeReply, ...errorResponses(400, 401, 403, 404, 409, 502) },
      },
    },
    async (request) => acceptDispute({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.post(
    "/api/admin/orders/:id/disputes/:disputeId/evidence",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Submit evidence text for a dispute: kept, and sent to the provider where its API takes it (admin or owner)",
        params: DisputeParams,
        body: EvidenceBody,
        response: { 200: DisputeReply, ...errorResponses(400, 401, 403, 404, 409, 502) },
      },
    },
    async (request) => submitDisputeEvidence({ ctx: callerCtx(deps, request), input: { ...request.params, body: request.body } }),
  );

  app.post(
    "/api/admin/orders/:id/disputes/simulate",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Simulate a dispute of a test charge of the order, as a provider's notification would bring it (admin or owner; issue 33)",
        params: OrderIdParams,
        body: SimulateDisputeBody,
        response: { 200: DisputeReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => simulateDispute({ ctx: callerCtx(deps, request), input: { id: request.params.id, body: request.body } }),
  );
}
