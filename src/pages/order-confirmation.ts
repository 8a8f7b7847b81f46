import type { Ctx } from "../ctx.js";
import { notFound, validationError } from "../lib/errors.js";
import { findLineItemsOf, findUpsellsOf } from "../orders/store.js";
import { verifyCheckoutToken } from "../checkout/token.js";
import { DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { findOrderBySession, findOrderByTransaction, findOrderOfBrand, type ConfirmedOrder } from "./confirmation-store.js";
import type { ConfirmationByTokenBody, ConfirmationQuery, ConfirmationReply } from "./schemas.js";

export const orderNotFound = () => notFound("Order not found");

/**
 * What the success page shows (issue 18): the order reference, each charge (the order and every
 * accepted upsell, in its currency), and whether a receipt email is coming. Order ids are the
 * merchant's and guessable, so an orderId alone answers nothing: the request must also carry a proof
 * only the buyer holds — the checkout's transactionId or the upsell session id — and a wrong proof is
 * the same 404 as an unknown order. No address or card data, and the e-mail only masked (issue 36):
 * only what the buyer just typed.
 */
export async function getOrderConfirmation({ ctx, input }: { ctx: Ctx; input: ConfirmationQuery }): Promise<ConfirmationReply> {
  if (!input.transactionId && !input.sessionId) throw validationError("Invalid request: transactionId or sessionId is required", "transactionId");
  const order = input.sessionId
    ? await findOrderBySession(ctx.db, input.orderId, input.sessionId)
    : await findOrderByTransaction(ctx.db, input.orderId, input.transactionId!);
  if (!order) throw orderNotFound();
  return confirmationOf(ctx, order);
}

/**
 * Issue 36 item 2: the buyer back on the checkout page of an order already paid sees that order's
 * confirmation (its charges), not a page that invites paying again. The checkout token is the proof:
 * it is verified as initialize verifies it (401 INVALID_TOKEN), and names the brand and the order.
 */
export async function getOrderConfirmationByToken({ ctx, input }: { ctx: Ctx; input: ConfirmationByTokenBody }): Promise<ConfirmationReply> {
  const claims = await verifyCheckoutToken(ctx, input.token);
  const order = await findOrderOfBrand(ctx.db, claims.brandId ?? DEFAULT_BRAND_ID, claims.orderId);
  if (!order) throw orderNotFound();
  return confirmationOf(ctx, order);
}

async function confirmationOf(ctx: Ctx, order: ConfirmedOrder): Promise<ConfirmationReply> {
  const upsells = await findUpsellsOf(ctx.db, order.brandId, [order.id]);
  const lines = await findLineItemsOf(ctx.db, [order.id, ...upsells.map((u) => u.id)]);
  const itemsOf = (ref: string) => lines.filter((l) => l.orderRef === ref).map((l) => ({ name: l.name ?? l.itemId, quantity: l.quantity, amount: l.unitPriceCents * l.quantity }));
  const position = (itemId: string) => order.itemOrder?.indexOf(itemId) ?? -1;
  const originalItems = lines
    .filter((l) => l.orderRef === order.id)
    .sort((a, b) => position(a.itemId) - position(b.itemId))
    .map((l) => ({ name: l.name ?? l.itemId, quantity: l.quantity, amount: l.unitPriceCents * l.quantity }));
  const charges: ConfirmationReply["charges"] = [
    {
      kind: "order",
      items: originalItems.length > 0 ? originalItems : [{ name: order.productName ?? "Your order", quantity: 1, amount: order.amountCents }],
      amount: order.amountCents,
      currency: order.currency,
    },
    ...upsells.map((u) => ({ kind: "upsell" as const, items: itemsOf(u.id), amount: u.amountCents, currency: u.currency })),
  ];
  const totals = new Map<string, number>();
  for (const c of charges) totals.set(c.currency, (totals.get(c.currency) ?? 0) + c.amount);
  return {
    success: true,
    orderId: order.orderId,
    brandName: order.brandName,
    receiptEmail: order.receiptsEnabled,
    ...(order.receiptsEnabled && maskEmail(order.customerEmail) ? { receiptTo: maskEmail(order.customerEmail)! } : {}),
    charges,
    totals: [...totals].map(([currency, amount]) => ({ amount, currency })),
  };
}

/** "jane@example.com" → "j•••@example.com": the first character and the domain; null for no address. */
export function maskEmail(email: string): string | null {
  const at = email.lastIndexOf("@");
  if (at < 1 || at === email.length - 1) return null;
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}
