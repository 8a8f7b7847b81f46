import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Deps } from "../ctx.js";
import type { Db } from "../db/client.js";
import { webhookAttempts, webhookEndpoints } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { recordAudit } from "../audit/record.js";
import { decrypt } from "../lib/crypto.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { sendWebhook, SEND_TIMEOUT_MS, type SendResult } from "./send.js";
import type { Metrics } from "../metrics/metrics.js";
import { keyOfSecret, signatureHeaders, SIGNATURE_HEADERS } from "./signer.js";

/** Delays after the 1st, 2nd, … failed attempt: 75 h in all, so retries span at least 72 hours (CONTRACT §14). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 14 * 3_600_000, 20 * 3_600_000, 24 * 3_600_000];
/** The first attempt plus one per retry delay; after the last the delivery is `failed` (kept, resendable). */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint whose deliveries have failed without a success for this long is disabled and audited. */
export const FAILING_DISABLE_MS = 5 * 24 * 3_600_000;
/** How long a claimed delivery stays invisible to other workers: more than a send can take. */
export const CLAIM_LEASE_MS = SEND_TIMEOUT_MS + 15_000;
const BATCH = 200;

/**
 * The delay before the next attempt after `attempts` failed ones, with jitter (never shorter than the
 * schedule: the first retry comes 5 to 10 s later, CONTRACT §33), or the receiver's Retry-After when longer.
 */
export function retryDelayMs(attempts: number, retryAfterMs: number | null, random = Math.random()): number {
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1];
  const jittered = attempts === 1 ? base + random * 5_000 : base * (1 + random * 0.2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

interface ClaimedRow {
  id: string;
  event_id: string;
  target: string;
  endpoint_id: string | null;
  brand_id: string;
  event_type: string;
  url: string;
  body: string;
  attempts: number;
}

interface EndpointRow {
  id: string;
  organizationId: string;
  brandId: string;
  sealedSecret: string;
  headers: Record<string, string>;
  enabled: boolean;
  deletedAt: Date | null;
  failingSince: Date | null;
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * The delivery engine (docs/webhooks.md "Delivery"): fans outbox events out to deliveries, claims due
 * deliveries with FOR UPDATE SKIP LOCKED (so any number of processes share the work without sending
 * one twice), signs and sends them outside any transaction, and records each attempt. Runs in every
 * process (`start`); tests call `deliverDue()` and move the clock instead.
 */
export class WebhookWorker {
  private running: Promise<{ events: number; sent: number }> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Aborted by stop(): sends in flight end at once and their deliveries are due again (another process takes them). */
  private abort = new AbortController();
  private readonly keys = new Map<string, Uint8Array>();

  constructor(
    private readonly deps: Deps,
    /** Counts attempt outcomes for /metrics. */
    private readonly metrics?: Pick<Metrics, "delivery">,
  ) {}

  /**
   * One round: fan out every undispatched event, then send every delivery due by the clock, until
   * none is left. Concurrent callers share the running round. Resolves with what it did.
   */
  deliverDue(): Promise<{ events: number; sent: number }> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  /** Starts the background loop (production): a round every `intervalMs`, at once again while there is work. */
  start(intervalMs = 200): void {
    this.stopped = false;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    const loop = async () => {
      if (this.stopped) return;
      let busy = false;
      try {
        const done = await this.deliverDue();
        busy = done.events > 0 || done.sent > 0;
      } catch (err) {
        this.deps.log.warn({ err }, "webhook delivery round failed; retrying");
      }
      if (!this.stopped) this.timer = setTimeout(loop, busy ? 0 : intervalMs);
    };
    this.timer = setTimeout(loop, 0);
  }

  /**
   * Stops claiming and ends the round in progress quickly: sends in flight are aborted (a receiver may
   * take 15 s; shutdown must finish within 10 s) and their deliveries are put back as due, with the
   * claimed attempt given back, so this or another process sends them again (at least once).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => {});
  }

  private async round(): Promise<{ events: number; sent: number }> {
    let events = 0;
    for (;;) {
      const fanned = await this.fanOut();
      events += fanned;
      if (fanned < BATCH) break;
    }
    let sent = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) break;
      await this.process(claimed);
      sent += claimed.length;
      if (claimed.length < BATCH || this.stopped) break;
    }
    return { events, sent };
  }

  /**
   * Each undispatched outbox event becomes one delivery per enabled endpoint of its brand subscribed to
   * its type (or `*`), plus one to the token's webhookUrl (CONTRACT §29); the event is marked dispatched.
   * One statement: the event rows stay locked (SKIP LOCKED for other processes) until it commits.
   */
  async fanOut(): Promise<number> {
    const now = new Date(this.deps.clock.now());
    const result = await this.deps.database.db.execute(sql`
      with picked as (
        select id, brand_id, type, payload, webhook_url, created_at from outbox_events
        where dispatched_at is null order by created_at limit ${BATCH} for update skip locked
      ), marked as (
        update outbox_events o set dispatched_at = ${now} from picked where o.id = picked.id returning o.id
      ), bodies as (
        select p.id, p.brand_id, p.type, p.webhook_url,
          json_build_object('type', p.type, 'timestamp', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', p.payload)::text as body
        from picked p
      ), to_endpoints as (
        insert into webhook_deliveries (id, event_id, target, endpoint_id, brand_id, event_type, url, body, status, attempts, next_attempt_at, created_at)
        select 'msg_' || replace(gen_random_uuid()::text, '-', ''), b.id, e.id, e.id, b.brand_id, b.type, e.url, b.body, 'pending', 0, ${now}, ${now}
        from bodies b join webhook_endpoints e on e.brand_id = b.brand_id and e.enabled and e.deleted_at is null
          and (e.events @> '["*"]'::jsonb or e.events @> jsonb_build_array(b.type))
        on conflict do nothing returning 1
      ), to_token as (
        insert into webhook_deliveries (id, event_id, target, endpoint_id, brand_id, event_type, url, body, status, attempts, next_attempt_at, created_at)
        select 'msg_' || replace(gen_random_uuid()::text, '-', ''), b.id, 'token', null, b.brand_id, b.type, b.webhook_url, b.body, 'pending', 0, ${now}, ${now}
        from bodies b where b.webhook_url is not null
        on conflict do nothing returning 1
      )
      select (select count(*) from marked)::int as events, (select count(*) from to_endpoints)::int as a, (select count(*) from to_token)::int as b`);
    return rowsOf<{ events: number }>(result)[0]?.events ?? 0;
  }

  /** Claims due deliveries: attempts + 1 and the lease in one statement, committed before any send. */
  private async claim(): Promise<ClaimedRow[]> {
    const now = this.deps.clock.now();
    const result = await this.deps.database.db.execute(sql`
      update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = ${new Date(now + CLAIM_LEASE_MS)}
      where d.id in (select id from webhook_deliveries where status = 'pending' and next_attempt_at <= ${new Date(now)}
                     order by next_attempt_at limit ${BATCH} for update skip locked)
      returning d.id, d.event_id, d.target, d.endpoint_id, d.brand_id, d.event_type, d.url, d.body, d.attempts`);
    return rowsOf<ClaimedRow>(result);
  }

  private keyOf(endpoint: EndpointRow): Uint8Array {
    let key = this.keys.get(endpoint.sealedSecret);
    if (!key) {
      key = keyOfSecret(decrypt(endpoint.sealedSecret, this.deps.config.encryptionKeyring));
      this.keys.set(endpoint.sealedSecret, key);
    }
    return key;
  }

  /** Sends claimed deliveries (concurrently) and records the outcomes. Also used by the test and resend operations. */
  async process(claimed: ClaimedRow[]): Promise<Map<string, SendResult>> {
    const { db } = this.deps.database;
    const endpointIds = [...new Set(claimed.map((row) => row.endpoint_id).filter((id): id is string => id !== null))];
    const endpoints = new Map<string, EndpointRow>();
    if (endpointIds.length > 0) {
      const rows = await db
        .select({
          id: webhookEndpoints.id,
          organizationId: webhookEndpoints.organizationId,
          brandId: webhookEndpoints.brandId,
          sealedSecret: webhookEndpoints.sealedSecret,
          headers: webhookEndpoints.headers,
          enabled: webhookEndpoints.enabled,
          deletedAt: webhookEndpoints.deletedAt,
          failingSince: webhookEndpoints.failingSince,
        })
        .from(webhookEndpoints)
        .where(inArray(webhookEndpoints.id, endpointIds));
      for (const row of rows) endpoints.set(row.id, row);
    }
    // Signed with the previous token secrets too, so receivers still on an old one keep verifying during a rotation.
    const { checkoutTokenSecret, checkoutTokenSecretsPrevious } = this.deps.config;
    const tokenKeys = [checkoutTokenSecret, ...checkoutTokenSecretsPrevious].map((secret) => Buffer.from(secret, "utf8"));
    const results = new Map<string, SendResult>();
    await Promise.all(
      claimed.map(async (row) => {
        const endpoint = row.endpoint_id ? endpoints.get(row.endpoint_id) : undefined;
        if (row.endpoint_id && (!endpoint || !endpoint.enabled || endpoint.deletedAt)) {
          results.set(row.id, { success: false, statusCode: null, durationMs: 0, error: "endpoint disabled or deleted", retryAfterMs: null });
          return;
        }
        const keys = endpoint ? [this.keyOf(endpoint)] : tokenKeys;
        // Custom headers first; the signature headers (and content type) are ours and always win.
        const custom = Object.fromEntries(Object.entries(endpoint?.headers ?? {}).filter(([name]) => !isReservedHeader(name)));
        const now = this.deps.clock.now();
        const headers = { ...custom, ...signatureHeaders(keys, row.id, now, row.body) };
        faultPoint(this.deps.config, "webhook.before-send");
        results.set(row.id, await sendWebhook({ url: row.url, headers, body: row.body, allowPrivate: this.deps.config.allowPrivateWebhookUrls, now, signal: this.abort.signal }));
      }),
    );
    await this.record(claimed, endpoints, results);
    return results;
  }

  /** Attempts, delivery states and endpoint health in one short transaction. */
  private async record(all: ClaimedRow[], endpoints: Map<string, EndpointRow>, results: Map<string, SendResult>): Promise<void> {
    const now = this.deps.clock.now();
    // Sends cut short by shutdown are no attempt: the claim is given back and the delivery is due now.
    const aborted = all.filter((row) => results.get(row.id)!.aborted);
    const claimed = aborted.length === 0 ? all : all.filter((row) => !results.get(row.id)!.aborted);
    if (aborted.length > 0) {
      await this.deps.database.db.execute(sql`
        update webhook_deliveries set attempts = attempts - 1, next_attempt_at = ${new Date(now)}
        where id in (select jsonb_array_elements_text(${JSON.stringify(aborted.map((row) => row.id))}::jsonb)) and status = 'pending'`);
      this.deps.log.info({ deliveries: aborted.length }, "webhook sends aborted by shutdown; put back as due");
      if (claimed.length === 0) return;
    }
    const updates = claimed.map((row) => {
      const result = results.get(row.id)!;
      const endpointGone = row.endpoint_id !== null && result.statusCode === 410;
      const finalFailure = !result.success && (endpointGone || row.attempts >= MAX_ATTEMPTS || result.error === "endpoint disabled or deleted");
      return {
        id: row.id,
        status: result.success ? "succeeded" : finalFailure ? "failed" : "pending",
        next_attempt_at: new Date(result.success || finalFailure ? now : now + retryDelayMs(row.attempts, result.retryAfterMs)).toISOString(),
        last_status_code: result.statusCode,
        last_error: result.error?.slice(0, 500) ?? null,
        completed_at: result.success || finalFailure ? new Date(now).toISOString() : null,
      };
    });
    const succeededEndpoints = new Set<string>();
    const failedEndpoints = new Set<string>();
    const goneEndpoints = new Set<string>();
    for (const row of claimed) {
      if (!row.endpoint_id || !endpoints.get(row.endpoint_id)?.enabled) continue;
      const result = results.get(row.id)!;
      if (result.success) succeededEndpoints.add(row.endpoint_id);
      else if (result.statusCode === 410) goneEndpoints.add(row.endpoint_id);
      else failedEndpoints.add(row.endpoint_id);
    }
    for (const id of succeededEndpoints) failedEndpoints.delete(id);
    const failingTooLong = [...failedEndpoints].filter((id) => {
      const since = endpoints.get(id)!.failingSince;
      return since !== null && now - since.getTime() >= FAILING_DISABLE_MS;
    });

    await withTransaction(this.deps.database.db, async (tx) => {
      await tx.insert(webhookAttempts).values(
        claimed.map((row) => {
          const result = results.get(row.id)!;
          return {
            id: newId("wha"),
            deliveryId: row.id,
            attempt: row.attempts,
            statusCode: result.statusCode,
            durationMs: result.durationMs,
            error: result.error?.slice(0, 500) ?? null,
            success: result.success,
            createdAt: new Date(now),
          };
        }),
      );
      await tx.execute(sql`
        update webhook_deliveries d set status = v.status, next_attempt_at = v.next_attempt_at, last_status_code = v.last_status_code,
          last_error = v.last_error, completed_at = v.completed_at
        from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb)
          as v(id text, status text, next_attempt_at timestamptz, last_status_code int, last_error text, completed_at timestamptz)
        where d.id = v.id`);
      if (succeededEndpoints.size > 0) {
        await tx.update(webhookEndpoints).set({ failingSince: null }).where(and(inArray(webhookEndpoints.id, [...succeededEndpoints]), isNotNull(webhookEndpoints.failingSince)));
      }
      if (failedEndpoints.size > 0) {
        await tx.update(webhookEndpoints).set({ failingSince: new Date(now) }).where(and(inArray(webhookEndpoints.id, [...failedEndpoints]), isNull(webhookEndpoints.failingSince)));
      }
      for (const [reason, ids] of [["gone", [...goneEndpoints]], ["failing", failingTooLong]] as const) {
        for (const id of ids) await disableEndpoint(tx, this.deps, endpoints.get(id)!, reason);
      }
    });
    if (this.metrics) {
      for (const update of updates) this.metrics.delivery(update.status === "succeeded" ? "succeeded" : update.status === "failed" ? "failed" : "retrying");
    }
  }
}

/** Disables an endpoint on the service's own decision (410 Gone, or 5 days of failures) and audits it. */
async function disableEndpoint(tx: Db, deps: Deps, endpoint: EndpointRow, reason: "gone" | "failing"): Promise<void> {
  const changed = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  if (changed.length === 0) return;
  deps.log.warn({ endpointId: endpoint.id, reason }, "webhook endpoint disabled");
  await recordAudit(tx, { clock: deps.clock, actor: { type: "system" } }, {
    action: "webhook_endpoint.disable",
    resourceType: "webhook_endpoint",
    resourceId: endpoint.id,
    success: true,
    actorType: "system",
    actorId: null,
    organizationId: endpoint.organizationId,
    brandId: endpoint.brandId,
    details: { reason: reason === "gone" ? "receiver answered 410 Gone" : "deliveries failing for 5 days" },
  });
}

const RESERVED = new Set<string>([...SIGNATURE_HEADERS, "content-type", "content-length", "host", "transfer-encoding", "connection", "user-agent"]);
/** Headers a custom header may not set: the signature headers and what HTTP framing owns. */
export function isReservedHeader(name: string): boolean {
  return RESERVED.has(name.toLowerCase());
}

export type { ClaimedRow };
