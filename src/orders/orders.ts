import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { readMode } from "../payments/mode.js";
import { notFound, validationError } from "../lib/errors.js";
import { assertScope } from "../merchant-credentials/api-key-caller.js";
import type { MerchantOrderIdParams, OrderChargeView, OrderDetail, OrderIdParams, OrderListQuery, OrderListReply, OrderStatus, OrderSummary } from "./schemas.js";
import { EVENT_TYPES } from "../outbox/events.js";
import { refundViewOf } from "./refunds.js";
import { disputeViewOf, findCheckoutOrder, findAttemptsOf, findCommissionsOf, findDisputesOf, findLineItemsOf, findRefundsOf, findTimelineOf, findUpsellsOf, orderPageQuery, type OrderCursor, type OrderRow } from "./store.js";

/** The charge's status from its disputes, its refunds and the provider's notifications, in that order. */
export function statusOf(row: Pick<OrderRow, "paymentStatus" | "refundedCents" | "amountCents" | "disputed">): OrderStatus {
  if (row.disputed) return "disputed";
  if (row.paymentStatus === "refunded" || row.refundedCents >= row.amountCents) return "refunded";
  if (row.refundedCents > 0) return "partially_refunded";
  if (row.paymentStatus === "failed") return "failed";
  return "paid";
}

const chargeOf = (row: OrderRow): OrderChargeView => ({
  id: row.id,
  orderId: row.orderId,
  status: statusOf(row),
  amount: row.amountCents,
  currency: row.currency,
  provider: row.provider,
  transactionId: row.transactionId,
  refunded: row.refundedCents,
  createdAt: row.createdAt.getTime(),
});

const summaryOf = (row: OrderRow, upsells: OrderRow[]): OrderSummary => ({
  ...chargeOf(row),
  customerEmail: row.customerEmail,
  customerName: row.customerName,
  test: row.paidInDemo === true,
  livemode: row.livemode,
  upsells: upsells.map(chargeOf),
});

// The cursor is opaque to callers: base64url of `<createdAt ms>.<id>`, the last order of the page.
const encodeCursor = (row: OrderRow) => Buffer.from(`${row.createdAt.getTime()}.${row.id}`).toString("base64url");

function decodeCursor(cursor: string): OrderCursor {
  const match = /^(\d{1,16})\.([\w-]{1,100})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw validationError("Invalid request: cursor is not a cursor this list gave", "cursor");
  return { createdAt: Number(match[1]), id: match[2]! };
}

/** A page of the brand's checkout orders of one mode, newest first, each with its accepted upsells. */
export async function listOrdersOfBrand(db: Db, brandId: string, query: OrderListQuery & { livemode: boolean }): Promise<OrderListReply> {
  const rows = await orderPageQuery(db, brandId, query, query.cursor ? decodeCursor(query.cursor) : null);
  const page = rows.slice(0, query.limit);
  const upsells = await findUpsellsOf(
    db,
    brandId,
    page.map((row) => row.id),
  );
  return {
    livemode: query.livemode,
    orders: page.map((row) => summaryOf(row, upsells.filter((u) => u.parentOrderId === row.id))),
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}

const catalogueIndex = (type: string) => EVENT_TYPES.indexOf(type as (typeof EVENT_TYPES)[number]);
/** Oldest first; events written together (a completion's three) in the catalogue's order, which is their causal order. */
const byTimelineOrder = (a: { createdAt: Date; type: string }, b: { createdAt: Date; type: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || catalogueIndex(a.type) - catalogueIndex(b.type);

/** One checkout order of the brand with everything the detail page shows; 404 for any other brand's (or, `livemode` given, another mode's). */
export async function orderDetailOfBrand(db: Db, brandId: string, where: { id: string } | { orderId: string }, livemode?: boolean): Promise<OrderDetail> {
  const row = await findCheckoutOrder(db, brandId, where, livemode);
  if (!row) throw notFound("Order not found");
  const upsells = await findUpsellsOf(db, brandId, [row.id]);
  const refs = [row.id, ...upsells.map((u) => u.id)];
  const [lineItems, commissionRows, refundRows, disputeRows, timeline, attemptRows] = await Promise.all([
    findLineItemsOf(db, [row.id]),
    findCommissionsOf(db, brandId, refs),
    findRefundsOf(db, refs),
    findDisputesOf(db, refs),
    row.checkoutId ? findTimelineOf(db, brandId, row.checkoutId) : { events: [], deliveries: [] },
    findAttemptsOf(db, brandId, row.orderId, row.livemode),
  ]);
  // The approved attempt of this charge (its transaction id); a retry after a decline adds attempts, only one approves.
  const approved = attemptRows.find((a) => a.result === "approved" && a.transactionId === row.transactionId) ?? attemptRows.find((a) => a.result === "approved");
  return {
    ...summaryOf(row, upsells),
    providerOrderId: row.providerOrderId,
    customer: row.customer ?? null,
    billingAddress: row.billingAddress ?? null,
    shippingAddress: row.shippingAddress ?? null,
    lineItems: lineItems.map((item) => ({ id: item.itemId, name: item.name, sku: item.sku, quantity: item.quantity, unitPrice: item.unitPriceCents })),
    crm: row.crmProvider ? { provider: row.crmProvider, orderId: row.crmOrderId, status: row.crmStatus } : null,
    affId: row.affId,
    subId: row.subId,
    checkoutId: row.checkoutId,
    metadata: row.metadata,
    refunds: refundRows.map(refundViewOf),
    disputes: disputeRows.map(disputeViewOf),
    commissions: commissionRows.map((c) => ({
      id: c.id,
      orderId: c.orderId,
      salespersonId: c.salespersonId,
      salespersonName: c.salespersonName,
      amount: c.commissionAmountCents,
      currency: c.currency,
      status: c.status,
    })),
    attempts: attemptRows.map((a) => ({
      provider: a.provider,
      result: a.result,
      declineCode: a.declineCode,
      declineClass: a.declineClass,
      providerCode: a.providerCode,
      routeRule: a.ruleName,
      routeReason: a.routeReason,
      at: a.createdAt.getTime(),
    })),
    card: approved ? { brand: approved.cardBrand, last4: approved.cardLast4, binCountry: approved.binCountry } : null,
    timeline: timeline.events.sort(byTimelineOrder).map((event) => ({
      id: event.id,
      type: event.type,
      createdAt: event.createdAt.getTime(),
      data: event.payload,
      deliveries: timeline.deliveries
        .filter((d) => d.eventId === event.id)
        .map((d) => ({
          id: d.id,
          target: d.target === "token" ? ("token" as const) : ("endpoint" as const),
          endpointId: d.endpointId,
          url: d.url,
          status: d.status,
          attempts: d.attempts,
          lastStatusCode: d.lastStatusCode,
          completedAt: d.completedAt?.getTime() ?? null,
        })),
    })),
  };
}

/** `GET /api/admin/orders`: any member, the session's brand. */
export async function listOrders({ ctx, input }: { ctx: Ctx; input: OrderListQuery }): Promise<OrderListReply> {
  const brandId = await brandOfScope(ctx.db, assertRole(ctx, "member"));
  return listOrdersOfBrand(ctx.db, brandId, { ...input, livemode: await readMode(ctx, brandId, input.livemode) });
}

/** `GET /api/admin/orders/<id>`: any member, an order of the session's brand by our id, whatever its mode (the answer's `livemode` says it). */
export async function getOrder({ ctx, input }: { ctx: Ctx; input: OrderIdParams }): Promise<OrderDetail> {
  const brandId = await brandOfScope(ctx.db, assertRole(ctx, "member"));
  return orderDetailOfBrand(ctx.db, brandId, { id: input.id });
}

/** `GET /api/v1/orders` (scope orders:read): the key's brand, the key's mode (a `livemode` parameter cannot change it). */
export async function listMerchantOrders({ ctx, input }: { ctx: Ctx; input: OrderListQuery }): Promise<OrderListReply> {
  const key = await assertScope(ctx, "orders:read");
  return listOrdersOfBrand(ctx.db, key.brandId, { ...input, livemode: key.livemode });
}

/** `GET /api/v1/orders/<orderId>` (scope orders:read): by the merchant's order id, the key's brand and mode only (another mode's is 404). */
export async function getMerchantOrder({ ctx, input }: { ctx: Ctx; input: MerchantOrderIdParams }): Promise<OrderDetail> {
  const key = await assertScope(ctx, "orders:read");
  return orderDetailOfBrand(ctx.db, key.brandId, { orderId: input.orderId }, key.livemode);
}
