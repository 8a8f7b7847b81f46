import type { FastifyReply } from "fastify";
import type { Deps } from "../ctx.js";
import { callerCtx, MERCHANT_API_CALLER } from "../http/auth.js";
import { noStore } from "../http/no-store.js";
import { errorResponses, MERCHANT_API_TAG } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { exportOrders } from "./export.js";
import { getMerchantOrder, getOrder, listMerchantOrders, listOrders } from "./orders.js";
import { refundMerchantOrder, refundOrder } from "./refunds.js";
import { MerchantOrderIdParams, OrderDetail, OrderExportQuery, OrderIdParams, OrderListQuery, OrderListReply, RefundBody, RefundReply } from "./schemas.js";

const ADMIN_TAG = "Administration: orders";

/** A refund still pending at the provider (a repeat of its Idempotency-Key after a crash or a 502) is 202: not settled yet, the reconciler settles it. */
const replyRefund = (reply: FastifyReply, result: RefundReply) => reply.code(result.refund.status === "pending" ? 202 : 200).send(result);

/** Issue 17: the orders of the back office (session, any role, the selected brand) and of merchant servers (`/api/v1`, scope orders:read). */
export function registerOrderRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/orders",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "The brand's orders, newest first, each with its upsells: search, filters, cursor pagination (any role)",
        querystring: OrderListQuery,
        response: { 200: OrderListReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listOrders({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.get(
    "/api/admin/orders/export.csv",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "The brand's orders with the list's filters as CSV (UTF-8 with BOM, RFC 4180), streamed (any role)",
        querystring: OrderExportQuery,
        produces: ["text/csv"],
        response: { 200: { description: "CSV: one row per checkout order, each followed by its upsells", content: { "text/csv": { schema: { type: "string" } } } }, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const csv = await exportOrders({ ctx: callerCtx(deps, request), input: request.query });
      const day = new Date(deps.clock.now()).toISOString().slice(0, 10);
      // A stream, sent as it is read; the 200 schema documents its text for OpenAPI only.
      return reply.type("text/csv; charset=utf-8").header("content-disposition", `attachment; filename="orders-${day}.csv"`).send(csv as never);
    },
  );

  app.get(
    "/api/admin/orders/:id",
    {
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "One order of the brand: line items, customer, payment, upsells, CRM and commissions (any role)",
        params: OrderIdParams,
        response: { 200: OrderDetail, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getOrder({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.post(
    "/api/admin/orders/:id/refunds",
    {
      config: { idempotent: true },
      onRequest: noStore,
      schema: {
        tags: [ADMIN_TAG],
        summary: "Refund all or part of one charge of the order: its own payment or an upsell's (admin or owner)",
        params: OrderIdParams,
        body: RefundBody,
        response: { 200: RefundReply, 202: RefundReply, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 502, 503) },
      },
    },
    async (request, reply) => replyRefund(reply, await refundOrder({ ctx: callerCtx(deps, request), input: { ...request.params, body: request.body } })),
  );

  const security = [{ merchantApiKey: [] }];
  app.get(
    "/api/v1/orders",
    {
      config: { caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags: [MERCHANT_API_TAG],
        security,
        summary: "The key's brand's orders, as in the back office (scope orders:read)",
        querystring: OrderListQuery,
        response: { 200: OrderListReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listMerchantOrders({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.get(
    "/api/v1/orders/:orderId",
    {
      config: { caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags: [MERCHANT_API_TAG],
        security,
        summary: "One order of the key's brand by the merchant's order id (scope orders:read)",
        params: MerchantOrderIdParams,
        response: { 200: OrderDetail, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getMerchantOrder({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.post(
    "/api/v1/orders/:orderId/refunds",
    {
      config: { idempotent: true, caller: MERCHANT_API_CALLER },
      onRequest: noStore,
      schema: {
        tags: [MERCHANT_API_TAG],
        security,
        summary: "Refund all or part of one charge of the key's brand's order (scope orders:refund)",
        params: MerchantOrderIdParams,
        body: RefundBody,
        response: { 200: RefundReply, 202: RefundReply, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 502, 503) },
      },
    },
    async (request, reply) => replyRefund(reply, await refundMerchantOrder({ ctx: callerCtx(deps, request), input: { ...request.params, body: request.body } })),
  );
}
