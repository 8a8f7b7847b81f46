import { and, eq, or } from "drizzle-orm";
import { Type, type Static } from "typebox";
import { Value } from "typebox/value";
import type { Ctx } from "../../ctx.js";
import { checkouts, incomingWebhookEvents, orders } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { AppError } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { DEMO_SIGNATURE_HEADER, DEMO_TIMESTAMP_HEADER, isDemoSignatureValid } from "./demo-scheme.js";

/** SPEC "Salesperson portal and incoming provider webhooks": the six providers that notify us. */
export const INCOMING_PROVIDERS = ["intent_gateway", "order_crm_a", "hosted_store", "order_crm_b", "vault_gateway_a", "cart_gateway"] as const;
export type IncomingProvider = (typeof INCOMING_PROVIDERS)[number];

/** A notification older or newer than this (by its signed timestamp) is refused: replay defence. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

/** The normalised notification every scheme yields (the demo scheme's body is exactly this). */
export const IncomingEvent = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.Union([Type.Literal("payment.succeeded"), Type.Literal("payment.failed"), Type.Literal("payment.refunded")]),
  data: Type.Object({
    orderId: Type.String({ minLength: 1, maxLength: 200 }),
    transactionId: Type.Optional(Type.String({ maxLength: 200 })),
    brandId: Type.Optional(Type.String({ maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  }),
});
export type IncomingEvent = Static<typeof IncomingEvent>;

const refused = (message: string) => new AppError("BAD_REQUEST", message);

export interface RawNotification {
  provider: IncomingProvider;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

const header = (headers: RawNotification["headers"], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * THE SEAM for the providers' own signature schemes: with a brand's `webhookSecret` in its provider
 * settings, the provider's scheme (and translation of its event names) applies. Provider settings are
 * being built separately; until they can be read here, only the demo scheme exists, and live mode
 * (which has no demo) refuses every notification as not verifiable.
 */
export function verifyWithProviderScheme(notification: RawNotification): never {
  throw refused(`No webhook signing secret configured for ${notification.provider}`);
}

/** Verifies the demo scheme (signature, then the 5-minute timestamp window); throws 400s. */
export function verifyDemoNotification(ctx: Pick<Ctx, "clock" | "config">, notification: RawNotification): void {
  const timestamp = header(notification.headers, DEMO_TIMESTAMP_HEADER);
  const signature = header(notification.headers, DEMO_SIGNATURE_HEADER);
  if (!timestamp || !signature) throw refused("Missing webhook signature");
  if (!/^\d{1,12}$/.test(timestamp)) throw refused("Invalid webhook timestamp");
  if (!isDemoSignatureValid(ctx.config.checkoutTokenSecret, timestamp, notification.body, signature)) throw refused("Invalid webhook signature");
  if (Math.abs(ctx.clock.now() - Number(timestamp) * 1000) > TIMESTAMP_TOLERANCE_MS) throw refused("Webhook timestamp outside the 5-minute tolerance");
}

function parseEvent(body: string): IncomingEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new AppError("INVALID_JSON", "Malformed JSON body");
  }
  if (!Value.Check(IncomingEvent, parsed)) {
    const first = [...Value.Errors(IncomingEvent, parsed)][0];
    throw new AppError("VALIDATION_ERROR", `Invalid notification: ${first?.message ?? "unexpected shape"}`, first?.instancePath?.replace(/^\//, "").replaceAll("/", ".") || undefined);
  }
  return parsed;
}

const STATUS_BY_TYPE = { "payment.succeeded": "succeeded", "payment.failed": "failed", "payment.refunded": "refunded" } as const;

/**
 * `POST /api/webhooks/<provider>`: verify, deduplicate by the provider's event id, store, and update
 * the checkout's and its orders' payment status. A repeat of a stored event id changes nothing.
 */
export async function receiveNotification(ctx: Ctx, notification: RawNotification): Promise<{ received: true; duplicate: boolean; outcome: string }> {
  if (ctx.config.paymentMode === "live") verifyWithProviderScheme(notification);
  verifyDemoNotification(ctx, notification);
  const event = parseEvent(notification.body);
  const now = new Date(ctx.clock.now());
  return withTransaction(ctx.db, async (tx) => {
    const matches = await tx
      .select({ id: checkouts.id, brandId: checkouts.brandId })
      .from(checkouts)
      .where(and(eq(checkouts.orderId, event.data.orderId), event.data.brandId ? eq(checkouts.brandId, event.data.brandId) : undefined))
      .limit(2);
    const checkout = matches.length === 1 ? matches[0] : null;
    const outcome = checkout ? "applied" : "unmatched";
    const stored = await tx
      .insert(incomingWebhookEvents)
      .values({
        id: newId("iwe"),
        provider: notification.provider,
        providerEventId: event.id,
        type: event.type,
        brandId: checkout?.brandId ?? null,
        orderId: event.data.orderId,
        payload: event as unknown as Record<string, unknown>,
        outcome,
        receivedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: incomingWebhookEvents.id });
    if (stored.length === 0) return { received: true as const, duplicate: true, outcome: "duplicate" };
    if (checkout) {
      const paymentStatus = STATUS_BY_TYPE[event.type];
      await tx.update(checkouts).set({ paymentStatus, updatedAt: now }).where(eq(checkouts.id, checkout.id));
      await tx
        .update(orders)
        .set({ paymentStatus })
        .where(
          and(
            eq(orders.brandId, checkout.brandId),
            event.data.transactionId ? or(eq(orders.checkoutId, checkout.id), eq(orders.transactionId, event.data.transactionId)) : eq(orders.checkoutId, checkout.id),
          ),
        );
    }
    return { received: true as const, duplicate: false, outcome };
  });
}
