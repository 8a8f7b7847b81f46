import { setTimeout as sleep } from "node:timers/promises";
import { and, eq, isNull } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import type { ApiActor } from "../http/auth.js";
import { bindResource, ofBrand, oncePerKey } from "../http/idempotent-effects.js";
import { AppError, notFound, validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { assertScope } from "../merchant-credentials/api-key-caller.js";
import { EVENT_TYPES, outboxRows, type EventType, type NewEvent } from "../outbox/events.js";
import { deliveryView } from "./endpoints.js";
import { EVENT_PAGE_SIZE_DEFAULT, type EventListQuery, type EventListReply, type EventView, type RedeliverBody, type TriggerBody } from "./events-schemas.js";
import { eventPageQuery, findEvent, insertEvents, type EventCursor, type EventRow, type EventScope } from "./events-store.js";
import type { SendReply } from "./schemas.js";
import type { ClaimedRow } from "./store.js";
import { CLAIM_LEASE_MS, type WebhookWorker } from "./worker.js";

// The events API (issue 33, docs/webhooks.md "Events API"): the outbox's events, read back with a key
// for 30 days, one brand and one mode at a time; a new delivery of one to an endpoint; test events.

/** How long an event can be listed, fetched and redelivered (the housekeeping keeps the rows at least this long). */
export const EVENT_RETENTION_DAYS = 30;
const DAY_MS = 24 * 3_600_000;
/** How often a waiting list request looks again (`waitSeconds`): one indexed query per waiting caller. */
const WAIT_POLL_MS = 250;

/** The key's brand and mode, and the oldest event that is still kept. */
function scopeOf(ctx: Ctx, key: ApiActor): EventScope {
  return { brandId: key.brandId, livemode: key.livemode, notBefore: ctx.clock.now() - EVENT_RETENTION_DAYS * DAY_MS };
}

export function eventView(row: EventRow): EventView {
  return { id: row.id, type: row.type, timestamp: row.createdAt.toISOString(), created: row.createdAt.getTime(), livemode: row.livemode, data: row.payload };
}

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** `type=a&type=b` or `type=a,b`: each one of the catalogue's types, else 400 naming it. */
function typesOf(query: EventListQuery): string[] | undefined {
  if (!query.type) return undefined;
  const types = [...new Set(query.type.flatMap((value) => value.split(",")).map((value) => value.trim()))];
  const unknown = types.find((type) => !KNOWN_TYPES.has(type));
  if (unknown !== undefined) throw validationError(`Invalid request: type ${JSON.stringify(unknown)} is not an event type (${EVENT_TYPES.join(", ")})`, "type");
  return types;
}

async function cursorOf(ctx: Ctx, scope: EventScope, id: string | undefined, name: "startingAfter" | "endingBefore"): Promise<EventCursor | undefined> {
  if (id === undefined) return undefined;
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw validationError(`Invalid request: ${name} names no event of this key's brand and mode kept in the last ${EVENT_RETENTION_DAYS} days`, name);
  return { createdAt: row.createdAt, seq: row.seq };
}

/**
 * `GET /api/v1/events` (scope events:read): the key's brand's events of the key's mode, newest first,
 * `limit` a page (at most 100). With `waitSeconds`, a page that would be empty is held until an event
 * for it exists (checked every 250 ms) or the time is up, or `signal` aborts (the caller went away).
 */
export async function listEvents({ ctx, input }: { ctx: Ctx; input: { query: EventListQuery; signal?: AbortSignal } }): Promise<EventListReply> {
  const key = await assertScope(ctx, "events:read");
  const { query } = input;
  if (query.startingAfter !== undefined && query.endingBefore !== undefined) throw validationError("Invalid request: give startingAfter or endingBefore, not both", "endingBefore");
  if (query.createdGte !== undefined && query.createdLte !== undefined && query.createdGte > query.createdLte) throw validationError("Invalid request: createdGte is after createdLte", "createdGte");
  const scope = scopeOf(ctx, key);
  const filters = { types: typesOf(query), createdGte: query.createdGte, createdLte: query.createdLte };
  const limit = query.limit ?? EVENT_PAGE_SIZE_DEFAULT;
  const page = { limit, olderThan: await cursorOf(ctx, scope, query.startingAfter, "startingAfter"), newerThan: await cursorOf(ctx, scope, query.endingBefore, "endingBefore") };
  const deadline = performance.now() + (query.waitSeconds ?? 0) * 1000;
  let rows = await eventPageQuery(ctx.db, scope, filters, page);
  while (rows.length === 0 && !input.signal?.aborted && performance.now() < deadline) {
    await sleep(Math.min(WAIT_POLL_MS, deadline - performance.now()), undefined, { signal: input.signal }).catch(() => undefined);
    if (input.signal?.aborted) break;
    rows = await eventPageQuery(ctx.db, scope, filters, page);
  }
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  // endingBefore reads upwards from the cursor; the page is still shown newest first.
  if (page.newerThan) shown.reverse();
  return { data: shown.map(eventView), hasMore, livemode: key.livemode };
}

/** `GET /api/v1/events/<id>` (scope events:read): another brand's or mode's event, or one older than 30 days, is 404. */
export async function getEvent({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EventView> {
  const key = await assertScope(ctx, "events:read");
  const row = await findEvent(ctx.db, scopeOf(ctx, key), input.id);
  if (!row) throw notFound("Event not found");
  return eventView(row);
}

/** The webhook body of an event (CONTRACT §14 with the event id), as the fan-out writes it. */
export function eventBody(row: EventRow): string {
  return JSON.stringify({ id: row.id, type: row.type, timestamp: row.createdAt.toISOString(), data: row.payload });
}

/**
 * `POST /api/v1/events/<id>/redeliver` `{ endpointId }` (scope webhooks:write): a new delivery of the
 * event to that endpoint of the key's brand, sent now through the same path as the admin resend
 * (worker.process: URL guard, signature, custom headers, the retry schedule after a failure). It has
 * its own `webhook-id`; the body's `id` is the event's. With an Idempotency-Key, one delivery per key
 * (CONTRACT §40): a repeat answers that delivery's state and sends nothing.
 */
export async function redeliverEvent({ ctx, input, worker }: { ctx: Ctx; input: { id: string; body: RedeliverBody }; worker: WebhookWorker }): Promise<SendReply> {
  const key = await assertScope(ctx, "webhooks:write");
  const effect = ofBrand(key.brandId, "event_redelivery");
  return oncePerKey(ctx, effect, {
    answer: async (deliveryId) => {
      const delivery = await deliveryView(ctx, deliveryId);
      return { success: true as const, delivered: delivery.status === "succeeded", delivery };
    },
    make: async () => {
      const event = await findEvent(ctx.db, scopeOf(ctx, key), input.id);
      if (!event) throw notFound("Event not found");
      const [endpoint] = await ctx.db
        .select()
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.id, input.body.endpointId),
            eq(webhookEndpoints.organizationId, key.organizationId),
            eq(webhookEndpoints.brandId, key.brandId),
            isNull(webhookEndpoints.deletedAt),
          ),
        );
      if (!endpoint) throw notFound("Webhook endpoint not found");
      if (!endpoint.enabled) throw new AppError("CONFLICT", "Webhook endpoint is disabled");
      // CONTRACT §39: an endpoint receives one mode.
      if (endpoint.livemode !== event.livemode) throw new AppError("CONFLICT", `Webhook endpoint receives ${endpoint.livemode ? "live" : "test"} events only`);
      worker.assertSecretReadable(endpoint);
      const now = ctx.clock.now();
      const id = newId("msg");
      // The target is the delivery's own id: (event, target) is unique per fan-out, and a redelivery is one more.
      const claimed: ClaimedRow = { id, eventId: event.id, target: id, endpointId: endpoint.id, brandId: key.brandId, eventType: event.type, url: endpoint.url, body: eventBody(event), attempts: 1 };
      await withTransaction(ctx.db, async (tx) => {
        await bindResource(tx, ctx, effect, id);
        await tx.insert(webhookDeliveries).values({
          ...claimed,
          status: "pending",
          // Claimed by this request (the lease), so the worker does not send it as well.
          nextAttemptAt: new Date(now + CLAIM_LEASE_MS),
          createdAt: new Date(now),
          livemode: event.livemode,
        });
        await recordAudit(tx, ctx, {
          action: "webhook_delivery.redeliver",
          resourceType: "webhook_delivery",
          resourceId: id,
          success: true,
          actorType: "api",
          actorId: key.id,
          organizationId: key.organizationId,
          brandId: key.brandId,
          details: { eventId: event.id, eventType: event.type, endpointId: endpoint.id },
        });
      });
      const results = await worker.process([claimed]);
      return { success: true as const, delivered: results.get(id)!.success, delivery: await deliveryView(ctx, id) };
    },
  });
}

/**
 * `POST /api/v1/events/trigger` `{ type }` (scope webhooks:write, a test key only): makes an event of
 * that type for the key's brand with sample data, `livemode: false`, fanned out like any event (the
 * brand's test endpoints and `checkout listen` get it). With an Idempotency-Key, one event per key.
 */
export async function triggerEvent({ ctx, input }: { ctx: Ctx; input: TriggerBody }): Promise<EventView> {
  const key = await assertScope(ctx, "webhooks:write");
  if (key.livemode) throw new AppError("FORBIDDEN", "Test events are made with a test key only (sk_test_…)");
  const effect = ofBrand(key.brandId, "test_event");
  const answer = async (id: string) => {
    const row = await findEvent(ctx.db, scopeOf(ctx, key), id);
    if (!row) throw notFound("Event not found");
    return eventView(row);
  };
  return oncePerKey(ctx, effect, {
    answer,
    make: async () => {
      const [row] = outboxRows(ctx.clock.now(), [sampleEvent(key.brandId, input.type)]);
      await withTransaction(ctx.db, async (tx) => {
        await bindResource(tx, ctx, effect, row.id!);
        await insertEvents(tx, [row]);
        await recordAudit(tx, ctx, {
          action: "event.trigger",
          resourceType: "event",
          resourceId: row.id!,
          success: true,
          actorType: "api",
          actorId: key.id,
          organizationId: key.organizationId,
          brandId: key.brandId,
          details: { type: input.type },
        });
      });
      return answer(row.id!);
    },
  });
}

const short = () => newId("t").slice(2, 12);

/** A test event of `type` with realistic data: ids of the service's forms, a demo provider, an amount in cents. */
export function sampleEvent(brandId: string, type: EventType): NewEvent {
  const orderId = `test_order_${short()}`;
  const checkoutMetadata = { source: "checkout trigger" };
  const common = { livemode: false as const, metadata: checkoutMetadata, checkoutMetadata };
  const charge = { orderId, transactionId: `txn_test_${short()}`, provider: "vault_gateway_a", amount: 4999, currency: "USD", ...common };
  const offer = { sessionId: newId("ups"), orderId: `${orderId}-upsell-1`, originalOrderId: orderId, offerId: "offer_1", offerName: "Extended warranty", ...common, metadata: { offer: "sample session" } };
  const dispute = { ...charge, disputeId: newId("dsp"), providerDisputeId: `dp_test_${short()}`, reason: "fraudulent" };
  const events: { [T in EventType]: Extract<NewEvent, { type: T }>["data"] } = {
    "checkout.created": { checkoutId: newId("chk"), orderId, amount: 4999, currency: "USD", productName: "Sample product", provider: "vault_gateway_a", providerOrderId: `po_test_${short()}`, customerEmail: "buyer@example.com", ...common },
    "checkout.completed": { ...charge, checkoutId: newId("chk"), customerEmail: "buyer@example.com" },
    "payment.succeeded": { ...charge, providerOrderId: null },
    "payment.failed": { orderId, provider: "vault_gateway_a", amount: 4999, currency: "USD", reason: "card_declined", declineCode: "card_declined", declineClass: "soft", providerCode: "card_declined", ...common },
    "order.confirmed": {
      ...charge,
      customerEmail: "buyer@example.com",
      customerName: "Sample Buyer",
      lineItems: [{ id: "item_1", name: "Sample product", quantity: 1, unitPrice: 4999, sku: "SAMPLE-1" }],
      crmOrderId: null,
      commissionId: null,
    },
    "upsell.accepted": { ...offer, transactionId: `txn_test_${short()}`, provider: "vault_gateway_a", amount: 1999, currency: "USD", totalUpsellAmount: 1999 },
    "upsell.declined": { ...offer, nextOfferId: null },
    "refund.succeeded": { ...charge, refundId: newId("ref"), reason: "requested_by_customer", providerRefundId: `rf_test_${short()}`, refundedTotal: 4999 },
    "refund.failed": { ...charge, refundId: newId("ref"), reason: "requested_by_customer", failureReason: "charge_too_old" },
    "dispute.created": { ...dispute, status: "needs_response", dueBy: null },
    "dispute.closed": { ...dispute, status: "won" },
  };
  return { brandId, type, data: events[type] } as NewEvent;
}
