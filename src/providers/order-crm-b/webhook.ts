import { Type, type Static } from "typebox";
import { AppError } from "../../lib/errors.js";
import { minorDigits } from "../../lib/money.js";
import { checked, Id, OptionalText, parseJson, parseNormalised, type DisputeNotice, type DisputeStatus, type ProviderNotification } from "../webhook-scheme-kit.js";

/**
 * order_crm_a and order_crm_b: what their notifications carry under the Standard Webhooks signature
 * (webhook-schemes.ts verifies it; docs/webhooks.md "Provider schemes"). The CRMs' postbacks are
 * configured per account, so the merchant points them (or a relay) at us in the normalised body:
 * `payment.*` events, and the CRM's chargebacks of an order as `order.chargeback.created`,
 * `order.chargeback.updated` and `order.chargeback.closed`, in the CRMs' own words: a chargeback
 * with its id, amount as decimal text, `status` `open`, `represented` (the merchant's answer is with
 * the issuer), `won` or `lost`, and a `dueDate` for the answer. Both CRMs speak it, so order_crm_a's
 * manifest entry names this folder too (as vault_gateway_b names vault_gateway_a's).
 */
const CHARGEBACK_TYPES = ["order.chargeback.created", "order.chargeback.updated", "order.chargeback.closed"] as const;

const Chargeback = Type.Object({
  id: Id,
  type: Type.Union(CHARGEBACK_TYPES.map((t) => Type.Literal(t))),
  data: Type.Object({
    /** Our order id of the charge (the CRM keeps it on each order: `externalOrderId`, `custom1`). */
    orderId: Id,
    transactionId: OptionalText(),
    brandId: Type.Optional(Type.String({ maxLength: 200 })),
    chargebackId: Id,
    amount: Type.Optional(Type.String({ pattern: "^\\d{1,10}(\\.\\d{1,3})?$" })),
    currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
    reason: OptionalText(500),
    reasonCode: OptionalText(),
    status: Type.Union(["open", "represented", "won", "lost"].map((s) => Type.Literal(s))),
    /** ISO 8601 date or time until which the CRM takes the merchant's answer. */
    dueDate: Type.Optional(Type.Union([Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}", maxLength: 40 }), Type.Null()])),
  }),
});

const STATUS: Record<string, DisputeStatus> = { open: "needs_response", represented: "under_review", won: "won", lost: "lost" };

function chargebackOf(event: Static<typeof Chargeback>): DisputeNotice {
  const data = event.data;
  // A closing notice says how it closed: anything but won or lost would leave it open under a closing name.
  if (event.type === "order.chargeback.closed" && data.status !== "won" && data.status !== "lost") {
    throw new AppError("VALIDATION_ERROR", "Invalid notification: a closed chargeback is won or lost", "data.status");
  }
  const due = data.dueDate ? Date.parse(data.dueDate) : null;
  if (Number.isNaN(due)) throw new AppError("VALIDATION_ERROR", "Invalid notification: dueDate is not a date", "data.dueDate");
  const currency = data.currency?.toUpperCase() ?? null;
  return {
    providerDisputeId: data.chargebackId,
    transactionId: data.transactionId || null,
    orderId: data.orderId,
    amountCents: data.amount === undefined ? null : Math.round(Number(data.amount) * 10 ** minorDigits(currency ?? "USD")),
    currency,
    reason: data.reason || data.reasonCode || null,
    status: STATUS[data.status]!,
    dueAt: due,
  };
}

/** The normalised body, with the CRMs' chargeback events. */
export function parseCrmNotification(text: string): ProviderNotification {
  const body = parseJson(text) as { type?: unknown } | null;
  if (typeof body?.type !== "string" || !body.type.startsWith("order.chargeback.")) return parseNormalised(text);
  const event = checked(Chargeback, body);
  return {
    id: event.id,
    type: event.type,
    status: null,
    orderId: event.data.orderId,
    transactionId: event.data.transactionId ?? undefined,
    brandId: event.data.brandId,
    disputes: [chargebackOf(event)],
    payload: event as unknown as Record<string, unknown>,
  };
}
