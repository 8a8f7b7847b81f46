import { Type, type Static } from "typebox";
import { AppError } from "../../lib/errors.js";
import { checked, Id, OptionalText, parseJson, parseNormalised, type DisputeNotice, type DisputeStatus, type ProviderNotification } from "../webhook-scheme-kit.js";

/**
 * cart_gateway: what its notifications carry under the Standard Webhooks signature (webhook-schemes.ts
 * verifies it; docs/webhooks.md "Provider schemes"): the normalised `payment.*` events, and its
 * disputes as `dispute.created`, `dispute.updated` and `dispute.closed` in the words of its REST API:
 * the dispute's id, the transaction it disputes, `amount` in minor units as every amount of the API,
 * `status` (`needs_response`, `under_review`, `won`, `lost`, `charge_refunded`, ours one for one) and
 * `evidenceDueBy` (Unix seconds).
 */
const DISPUTE_TYPES = ["dispute.created", "dispute.updated", "dispute.closed"] as const;
const STATUSES = ["needs_response", "under_review", "won", "lost", "charge_refunded"] as const;
const CLOSED = new Set<string>(["won", "lost", "charge_refunded"]);

const CartDispute = Type.Object({
  id: Id,
  type: Type.Union(DISPUTE_TYPES.map((t) => Type.Literal(t))),
  data: Type.Object({
    disputeId: Id,
    transactionId: Id,
    /** Our order id: the cart's `externalOrderId`. */
    orderId: OptionalText(),
    brandId: Type.Optional(Type.String({ maxLength: 200 })),
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000_000 })),
    currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
    reason: OptionalText(500),
    status: Type.Union(STATUSES.map((s) => Type.Literal(s))),
    evidenceDueBy: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 99_999_999_999 }), Type.Null()])),
  }),
});

function disputeOf(event: Static<typeof CartDispute>): DisputeNotice {
  const data = event.data;
  if (event.type === "dispute.closed" && !CLOSED.has(data.status)) throw new AppError("VALIDATION_ERROR", "Invalid notification: a closed dispute is won, lost or charge_refunded", "data.status");
  return {
    providerDisputeId: data.disputeId,
    transactionId: data.transactionId,
    orderId: data.orderId || null,
    amountCents: data.amount ?? null,
    currency: data.currency?.toUpperCase() ?? null,
    reason: data.reason || null,
    status: data.status as DisputeStatus,
    dueAt: data.evidenceDueBy ? data.evidenceDueBy * 1000 : null,
  };
}

/** The normalised body, with the cart gateway's dispute events. */
export function parseCartNotification(text: string): ProviderNotification {
  const body = parseJson(text) as { type?: unknown } | null;
  if (typeof body?.type !== "string" || !body.type.startsWith("dispute.")) return parseNormalised(text);
  const event = checked(CartDispute, body);
  return {
    id: event.id,
    type: event.type,
    status: null,
    orderId: event.data.orderId || null,
    transactionId: event.data.transactionId,
    brandId: event.data.brandId,
    disputes: [disputeOf(event)],
    payload: event as unknown as Record<string, unknown>,
  };
}
