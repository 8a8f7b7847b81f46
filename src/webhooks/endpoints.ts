import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, selectedBrand, type CallerScope } from "../http/auth.js";
import { brandLivemode, readMode } from "../payments/mode.js";
import { bindResource, keyAlreadyUsed, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { seal } from "../lib/crypto.js";
import { AppError, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { EVENT_TYPES } from "../outbox/events.js";
import {
  DELIVERIES_PAGE_SIZE_MAX,
  type AttemptView,
  type CreateEndpointBody,
  type DeliveriesQuery,
  type DeliveriesReply,
  type DeliveryView,
  type EndpointsQuery,
  type EndpointsReply,
  type EndpointView,
  type SendReply,
} from "./schemas.js";
import { generateSecret, maskSecret, secretProblem } from "./signer.js";
import { checkOutgoingUrl, UrlRefused } from "../lib/url-guard.js";
import type { ClaimedRow } from "./store.js";
import { CLAIM_LEASE_MS, isReservedHeader, type WebhookWorker } from "./worker.js";

type Verb<I> = { ctx: Ctx; input: I };
type SendVerb<I> = Verb<I> & { worker: WebhookWorker };

// Endpoints are per brand: a caller without a selected brand gets 400 `No brand selected` (docs/webhooks.md).

const scoped = (scope: CallerScope, brandId: string) =>
  and(eq(webhookEndpoints.organizationId, scope.organizationId), eq(webhookEndpoints.brandId, brandId), isNull(webhookEndpoints.deletedAt));

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type Counts = { total: number; succeeded: number; failed: number };
const statsOf = (c: Counts | undefined) => ({
  totalDeliveries: c?.total ?? 0,
  successRate: c && c.succeeded + c.failed > 0 ? Math.round((c.succeeded / (c.succeeded + c.failed)) * 10_000) / 100 : 0,
});

function viewOf(row: EndpointRow, counts: Counts | undefined): EndpointView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    headers: row.headers,
    enabled: row.enabled,
    secret: row.secretHint,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.getTime(),
    livemode: row.livemode,
    stats: statsOf(counts),
  };
}

/** `GET /api/admin/webhooks`: the brand's endpoints of one mode (secrets masked), delivery stats, the seven events. */
export async function listEndpoints({ ctx, input = {} }: { ctx: Ctx; input?: EndpointsQuery }): Promise<EndpointsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = selectedBrand(scope);
  const livemode = await readMode(ctx, brandId, input.livemode);
  const rows = await ctx.db.select().from(webhookEndpoints).where(and(scoped(scope, brandId), eq(webhookEndpoints.livemode, livemode))).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  const byEndpoint = new Map<string, Counts>();
  if (rows.length > 0) {
    const counted = await ctx.db
      .select({
        endpointId: webhookDeliveries.endpointId,
        total: sql<number>`count(*)::int`,
        succeeded: sql<number>`(count(*) filter (where ${webhookDeliveries.status} = 'succeeded'))::int`,
        failed: sql<number>`(count(*) filter (where ${webhookDeliveries.status} = 'failed'))::int`,
      })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.endpointId, rows.map((r) => r.id)))
      .groupBy(webhookDeliveries.endpointId);
    for (const c of counted) byEndpoint.set(c.endpointId!, c);
  }
  const all = [...byEndpoint.values()].reduce<Counts>((sum, c) => ({ total: sum.total + c.total, succeeded: sum.succeeded + c.succeeded, failed: sum.failed + c.failed }), { total: 0, succeeded: 0, failed: 0 });
  return { livemode, endpoints: rows.map((row) => viewOf(row, byEndpoint.get(row.id))), stats: statsOf(all), availableEvents: [...EVENT_TYPES] };
}

/** `POST /api/admin/webhooks` (admin or owner): checks the URL (SSRF guard) and the secret, stores the secret sealed. */
export async function createEndpoint({ ctx, input }: Verb<CreateEndpointBody>): Promise<EndpointView & { secret: string }> {
  const scope = assertRole(ctx, "admin");
  const brandId = selectedBrand(scope);
  // CONTRACT §40: an Idempotency-Key names one endpoint of the brand; its secret is shown once, so a repeat is 409 naming the endpoint.
  const effect = ofBrand(brandId, "webhook_endpoint");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      throw keyAlreadyUsed("webhook endpoint", id, `its secret was shown once and cannot be shown again; if that answer was lost, delete the endpoint (DELETE /api/admin/webhooks/${id}) and add it again`);
    },
    make: () => makeEndpoint(ctx, scope, brandId, input, effect),
  });
}

async function makeEndpoint(ctx: Ctx, scope: CallerScope, brandId: string, input: CreateEndpointBody, effect: EffectOf): Promise<EndpointView & { secret: string }> {
  let url: URL;
  try {
    url = await checkOutgoingUrl(input.url, ctx.config.allowPrivateWebhookUrls);
  } catch (error) {
    if (error instanceof UrlRefused) throw new AppError("VALIDATION_ERROR", `Webhook URL not allowed: ${error.message}`, "url");
    throw error;
  }
  if (input.secret !== undefined) {
    const problem = secretProblem(input.secret);
    if (problem) throw new AppError("VALIDATION_ERROR", `Invalid request: secret ${problem}`, "secret");
  }
  const headers = input.headers ?? {};
  for (const name of Object.keys(headers)) {
    if (isReservedHeader(name)) throw new AppError("VALIDATION_ERROR", `Invalid request: headers.${name} is set by the service and cannot be overridden`, `headers.${name}`);
  }
  const secret = input.secret ?? generateSecret();
  const now = new Date(ctx.clock.now());
  const row: typeof webhookEndpoints.$inferInsert = {
    id: newId("whe"),
    organizationId: scope.organizationId,
    brandId,
    name: input.name ?? url.hostname,
    url: url.toString(),
    sealedSecret: seal(secret, ctx.config.encryptionKey),
    secretHint: maskSecret(secret),
    events: input.events ? [...new Set(input.events)] : ["*"],
    headers,
    enabled: input.enabled ?? true,
    // CONTRACT §39: an endpoint receives one mode's events; the brand's mode unless named.
    livemode: input.livemode ?? (await brandLivemode(ctx, brandId)),
    createdAt: now,
  };
  const created = await withTransaction(ctx.db, async (tx) => {
    await bindResource(tx, ctx, effect, row.id);
    const [inserted] = await tx.insert(webhookEndpoints).values(row).returning();
    await recordAudit(tx, ctx, {
      action: "webhook_endpoint.create",
      resourceType: "webhook_endpoint",
      resourceId: inserted.id,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { name: inserted.name, url: inserted.url, events: inserted.events, enabled: inserted.enabled, livemode: inserted.livemode },
    });
    return inserted;
  });
  return { ...viewOf(created, undefined), secret };
}

async function endpointInScope(ctx: Ctx, scope: CallerScope, id: string): Promise<EndpointRow> {
  const brandId = selectedBrand(scope);
  const [row] = await ctx.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), scoped(scope, brandId)));
  if (!row) throw notFound("Webhook endpoint not found");
  return row;
}

/** `DELETE /api/admin/webhooks/<id>`: soft delete (its delivery history stays); pending deliveries end as failed. */
export async function deleteEndpoint({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  const scope = assertRole(ctx, "admin");
  const endpoint = await endpointInScope(ctx, scope, input.id);
  const now = new Date(ctx.clock.now());
  await withTransaction(ctx.db, async (tx) => {
    await tx.update(webhookEndpoints).set({ deletedAt: now, enabled: false }).where(eq(webhookEndpoints.id, endpoint.id));
    await tx
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: "endpoint deleted", completedAt: now })
      .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, "pending")));
    await recordAudit(tx, ctx, {
      action: "webhook_endpoint.delete",
      resourceType: "webhook_endpoint",
      resourceId: endpoint.id,
      success: true,
      organizationId: scope.organizationId,
      brandId: endpoint.brandId,
      details: { name: endpoint.name, url: endpoint.url },
    });
  });
  return { id: endpoint.id };
}

/**
 * `POST /api/admin/webhooks/<id>/test`: sends a signed `webhook.test` payload now, through the same
 * path as real events (guard, signature, custom headers), and answers with the recorded attempt.
 */
export async function testEndpoint({ ctx, input, worker }: SendVerb<{ id: string }>): Promise<SendReply> {
  const scope = assertRole(ctx, "admin");
  const endpoint = await endpointInScope(ctx, scope, input.id);
  worker.assertSecretReadable(endpoint);
  const now = ctx.clock.now();
  const eventId = newId("evt");
  const body = JSON.stringify({ type: "webhook.test", timestamp: new Date(now).toISOString(), data: { endpointId: endpoint.id, message: "This is a test payload." } });
  const claimed: ClaimedRow = { id: newId("msg"), eventId, target: endpoint.id, endpointId: endpoint.id, brandId: endpoint.brandId, eventType: "webhook.test", url: endpoint.url, body, attempts: 1 };
  await withTransaction(ctx.db, async (tx) => {
    await tx.insert(webhookDeliveries).values({
      id: claimed.id,
      eventId,
      target: endpoint.id,
      endpointId: endpoint.id,
      brandId: endpoint.brandId,
      eventType: "webhook.test",
      url: endpoint.url,
      body,
      status: "pending",
      attempts: 1,
      // Claimed by this request (the lease), so the worker does not send it as well.
      nextAttemptAt: new Date(now + CLAIM_LEASE_MS),
      createdAt: new Date(now),
      livemode: endpoint.livemode,
    });
    await recordAudit(tx, ctx, { action: "webhook_endpoint.test", resourceType: "webhook_endpoint", resourceId: endpoint.id, success: true, organizationId: scope.organizationId, brandId: endpoint.brandId });
  });
  const results = await worker.process([claimed]);
  return { success: true, delivered: results.get(claimed.id)!.success, delivery: await deliveryView(ctx, claimed.id) };
}

/** `GET /api/admin/webhooks/<id>/deliveries`: newest first, each with its attempts. */
export async function listDeliveries({ ctx, input }: Verb<{ id: string; query: DeliveriesQuery }>): Promise<DeliveriesReply> {
  const scope = assertRole(ctx, "member");
  const endpoint = await endpointInScope(ctx, scope, input.id);
  const limit = Math.min(input.query.limit, DELIVERIES_PAGE_SIZE_MAX);
  const page = input.query.page;
  // One mode at a time (CONTRACT §39): the endpoint's own unless asked (deliveries from before modes may differ).
  const livemode = input.query.livemode ?? endpoint.livemode;
  const where = and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.livemode, livemode), input.query.status ? eq(webhookDeliveries.status, input.query.status) : undefined);
  const [{ total }] = await ctx.db.select({ total: count() }).from(webhookDeliveries).where(where);
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit)
    .offset((page - 1) * limit);
  const attempts = await attemptsOf(ctx, rows.map((r) => r.id));
  return {
    endpointId: endpoint.id,
    livemode,
    deliveries: rows.map((row) => toDeliveryView(row, attempts.get(row.id) ?? [])),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

/**
 * `POST /api/admin/webhooks/deliveries/<deliveryId>/resend`: sends a finished (failed or succeeded)
 * delivery again now, with the same webhook-id; a failure puts it back on the retry schedule.
 */
export async function resendDelivery({ ctx, input, worker }: SendVerb<{ deliveryId: string }>): Promise<SendReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = selectedBrand(scope);
  const [found] = await ctx.db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.id, input.deliveryId), isNotNull(webhookDeliveries.endpointId), scoped(scope, brandId)));
  if (!found) throw notFound("Webhook delivery not found");
  if (!found.endpoint.enabled) throw new AppError("CONFLICT", "Webhook endpoint is disabled");
  worker.assertSecretReadable(found.endpoint);
  const now = ctx.clock.now();
  const claimed = await withTransaction(ctx.db, async (tx) => {
    // Only a finished delivery: a pending one is the worker's (and may be in flight right now).
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", attempts: 1, nextAttemptAt: new Date(now + CLAIM_LEASE_MS), completedAt: null })
      .where(and(eq(webhookDeliveries.id, found.delivery.id), sql`${webhookDeliveries.status} <> 'pending'`))
      .returning();
    if (!row) throw new AppError("CONFLICT", "Delivery is still pending: it will be retried automatically");
    await recordAudit(tx, ctx, { action: "webhook_delivery.resend", resourceType: "webhook_delivery", resourceId: row.id, success: true, organizationId: scope.organizationId, brandId });
    return row;
  });
  // A resend starts a fresh retry series (attempts counts from 1 again; the attempt log keeps all).
  const results = await worker.process([claimed]);
  return { success: true, delivered: results.get(claimed.id)!.success, delivery: await deliveryView(ctx, claimed.id) };
}

async function attemptsOf(ctx: Ctx, deliveryIds: string[]): Promise<Map<string, AttemptView[]>> {
  const byDelivery = new Map<string, AttemptView[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)).orderBy(asc(webhookAttempts.createdAt), asc(webhookAttempts.attempt));
  for (const row of rows) {
    const list = byDelivery.get(row.deliveryId) ?? [];
    list.push({ attempt: row.attempt, statusCode: row.statusCode, durationMs: row.durationMs, error: row.error, success: row.success, createdAt: row.createdAt.getTime(), responseBody: row.responseBody });
    byDelivery.set(row.deliveryId, list);
  }
  return byDelivery;
}

function toDeliveryView(row: typeof webhookDeliveries.$inferSelect, attempts: AttemptView[]): DeliveryView {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.getTime() : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.getTime(),
    completedAt: row.completedAt?.getTime() ?? null,
    requestBody: row.body,
    attemptLog: attempts,
  };
}

export async function deliveryView(ctx: Ctx, id: string): Promise<DeliveryView> {
  const [row] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return toDeliveryView(row, (await attemptsOf(ctx, [id])).get(id) ?? []);
}
