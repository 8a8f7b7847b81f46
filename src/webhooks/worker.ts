import { setMaxListeners } from "node:events";
import type { Deps } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { recordAudit } from "../audit/record.js";
import { decrypt, UndecryptableSecret } from "../lib/crypto.js";
import { AppError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import type { Job } from "../jobs/runner.js";
import { sendWebhook, SEND_TIMEOUT_MS, type SendResult } from "./send.js";
import type { Metrics } from "../metrics/metrics.js";
import { keyOfSecret } from "../lib/webhook-secret.js";
import { signatureHeaders, SIGNATURE_HEADERS } from "./signer.js";
import { claimDueDeliveries, disableEnabledEndpoint, endpointsByIds, fanOutEvents, markEndpointsHealth, recordAttempts, releaseClaims, type ClaimedRow, type DeliveryOutcome, type EndpointRow } from "./store.js";

/** Delays after the 1st, 2nd, … failed attempt: 75 h in all, so retries span at least 72 hours (CONTRACT §14). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 14 * 3_600_000, 20 * 3_600_000, 24 * 3_600_000];
/** The first attempt plus one per retry delay; after the last the delivery is `failed` (kept, resendable). */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint whose deliveries have failed without a success for this long is disabled and audited. */
export const FAILING_DISABLE_MS = 5 * 24 * 3_600_000;
/** How long a claimed delivery stays invisible to other workers: more than a send can take. */
export const CLAIM_LEASE_MS = SEND_TIMEOUT_MS + 15_000;
const BATCH = 200;
/** The start of `last_error` of a delivery failed because its endpoint's secret cannot be opened. */
export const UNDECRYPTABLE_ERROR = "webhook secret cannot be decrypted, nothing sent";
const isUndecryptable = (result: SendResult) => result.error?.startsWith(UNDECRYPTABLE_ERROR) === true;

/**
 * The delay before the next attempt after `attempts` failed ones, with jitter (never shorter than the
 * schedule: the first retry comes 5 to 10 s later, CONTRACT §33), or the receiver's Retry-After when longer.
 */
export function retryDelayMs(attempts: number, retryAfterMs: number | null, random = Math.random()): number {
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1];
  const jittered = attempts === 1 ? base + random * 5_000 : base * (1 + random * 0.2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/**
 * The delivery engine (docs/webhooks.md "Delivery"): fans outbox events out to deliveries, claims due
 * deliveries with a lease (FOR UPDATE SKIP LOCKED, so any number of processes share the work without
 * sending one twice), signs and sends them outside any transaction, and records each attempt. Runs in
 * every process as the job runner's `webhook-delivery` job; tests call `deliverDue()` and move the clock.
 */
export class WebhookWorker {
  private running: Promise<{ events: number; sent: number }> | null = null;
  private readonly keys = new Map<string, Uint8Array>();

  /** The runner's job: a round every 200 ms while idle, again at once while there is work. */
  readonly job: Job = {
    name: "webhook-delivery",
    everyMs: 200,
    run: async ({ signal }) => {
      const done = await this.deliverDue(signal);
      return done.events > 0 || done.sent > 0;
    },
  };

  constructor(
    private readonly deps: Deps,
    /**
     * Aborted at shutdown (the runner's signal): sends in flight end at once and their deliveries are
     * due again (another process takes them). Also ends the sends of the test and resend operations.
     */
    private readonly shutdown: AbortSignal,
    /** Counts attempt outcomes, undecryptable secrets and the business events fanned out, for /metrics. */
    private readonly metrics?: Pick<Metrics, "delivery" | "undecryptableSecret" | "business">,
  ) {}

  /**
   * One round: fan out every undispatched event, then send every delivery due by the clock, until
   * none is left or `signal` aborts. Concurrent callers share the running round. Resolves with what it did.
   */
  deliverDue(signal = this.shutdown): Promise<{ events: number; sent: number }> {
    this.running ??= this.round(signal).finally(() => (this.running = null));
    return this.running;
  }

  private async round(signal: AbortSignal): Promise<{ events: number; sent: number }> {
    const { db } = this.deps.database;
    let events = 0;
    for (;;) {
      const fanned = await fanOutEvents(db, this.deps.clock.now(), BATCH);
      events += fanned.events;
      this.metrics?.business(fanned.business);
      if (fanned.events < BATCH) break;
    }
    let sent = 0;
    while (!signal.aborted) {
      const claimed = await claimDueDeliveries(db, { now: this.deps.clock.now(), leaseMs: CLAIM_LEASE_MS, limit: BATCH });
      if (claimed.length === 0) break;
      await this.process(claimed, signal);
      sent += claimed.length;
      if (claimed.length < BATCH) break;
    }
    return { events, sent };
  }

  /** The endpoint's signing key, or the reason its sealed secret cannot be opened (counted and logged). */
  private keyOf(endpoint: Pick<EndpointRow, "id" | "sealedSecret">): Uint8Array | { undecryptable: string } {
    let key = this.keys.get(endpoint.sealedSecret);
    if (!key) {
      try {
        key = keyOfSecret(decrypt(endpoint.sealedSecret, this.deps.config.encryptionKeyring));
      } catch (error) {
        if (!(error instanceof UndecryptableSecret)) throw error;
        this.metrics?.undecryptableSecret("webhook_endpoints");
        this.deps.log.warn({ endpointId: endpoint.id, reason: error.message }, "webhook endpoint secret cannot be decrypted; its deliveries fail, the others go on");
        return { undecryptable: `${UNDECRYPTABLE_ERROR}: ${error.message}` };
      }
      this.keys.set(endpoint.sealedSecret, key);
    }
    return key;
  }

  /**
   * For the test and resend operations: a 409 naming the cause, before anything is written, when the
   * endpoint's secret cannot be opened with the configured keys (never a 500).
   */
  assertSecretReadable(endpoint: Pick<EndpointRow, "id" | "sealedSecret">): void {
    const key = this.keyOf(endpoint);
    if ("undecryptable" in key) {
      throw new AppError("CONFLICT", "Webhook secret cannot be decrypted: it was sealed with an ENCRYPTION_KEY this server does not have (put that key back in ENCRYPTION_KEY_PREVIOUS, or create the endpoint again)");
    }
  }

  /** Sends claimed deliveries (concurrently) and records the outcomes. Also used by the test and resend operations. */
  async process(claimed: ClaimedRow[], signal = this.shutdown): Promise<Map<string, SendResult>> {
    const endpointIds = [...new Set(claimed.map((row) => row.endpointId).filter((id): id is string => id !== null))];
    const endpoints = await endpointsByIds(this.deps.database.db, endpointIds);
    // Signed with the previous token secrets too, so receivers still on an old one keep verifying during a rotation.
    const { checkoutTokenSecret, checkoutTokenSecretsPrevious } = this.deps.config;
    const tokenKeys = [checkoutTokenSecret, ...checkoutTokenSecretsPrevious].map((secret) => Buffer.from(secret, "utf8"));
    const results = new Map<string, SendResult>();
    // The sends of this batch listen on a signal of their own, which alone listens on the long-lived one:
    // 200 sends each adding a listener to the shutdown signal set off MaxListenersExceededWarning.
    const batch = new AbortController();
    setMaxListeners(claimed.length + 1, batch.signal);
    const abortBatch = () => batch.abort();
    if (signal.aborted) batch.abort();
    else signal.addEventListener("abort", abortBatch, { once: true });
    try {
      await Promise.all(
        claimed.map(async (row) => {
          const endpoint = row.endpointId ? endpoints.get(row.endpointId) : undefined;
          if (row.endpointId && (!endpoint || !endpoint.enabled || endpoint.deletedAt)) {
            results.set(row.id, { success: false, statusCode: null, durationMs: 0, error: "endpoint disabled or deleted", retryAfterMs: null });
            return;
          }
          const endpointKey = endpoint ? this.keyOf(endpoint) : null;
          if (endpointKey && "undecryptable" in endpointKey) {
            // This endpoint only: nothing is sent, the delivery fails for good (no retry can open it).
            results.set(row.id, { success: false, statusCode: null, durationMs: 0, error: endpointKey.undecryptable, retryAfterMs: null });
            return;
          }
          const keys = endpointKey ? [endpointKey] : tokenKeys;
          // Custom headers first; the signature headers (and content type) are ours and always win.
          const custom = Object.fromEntries(Object.entries(endpoint?.headers ?? {}).filter(([name]) => !isReservedHeader(name)));
          const now = this.deps.clock.now();
          const headers = { ...custom, ...signatureHeaders(keys, row.id, now, row.body) };
          faultPoint(this.deps.config, "webhook.before-send");
          results.set(row.id, await sendWebhook({ url: row.url, headers, body: row.body, allowPrivate: this.deps.config.allowPrivateWebhookUrls, now, signal: batch.signal }));
        }),
      );
    } finally {
      signal.removeEventListener("abort", abortBatch);
    }
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
      await releaseClaims(this.deps.database.db, aborted.map((row) => row.id), now);
      this.deps.log.info({ deliveries: aborted.length }, "webhook sends aborted by shutdown; put back as due");
      if (claimed.length === 0) return;
    }
    const outcomes = claimed.map((row): DeliveryOutcome => {
      const result = results.get(row.id)!;
      const endpointGone = row.endpointId !== null && result.statusCode === 410;
      const finalFailure = !result.success && (endpointGone || row.attempts >= MAX_ATTEMPTS || result.error === "endpoint disabled or deleted" || isUndecryptable(result));
      const done = result.success || finalFailure;
      return {
        id: row.id,
        status: result.success ? "succeeded" : finalFailure ? "failed" : "pending",
        nextAttemptAt: new Date(done ? now : now + retryDelayMs(row.attempts, result.retryAfterMs)),
        lastStatusCode: result.statusCode,
        lastError: result.error?.slice(0, 500) ?? null,
        completedAt: done ? new Date(now) : null,
      };
    });
    const succeededEndpoints = new Set<string>();
    const failedEndpoints = new Set<string>();
    const goneEndpoints = new Set<string>();
    for (const row of claimed) {
      if (!row.endpointId || !endpoints.get(row.endpointId)?.enabled) continue;
      const result = results.get(row.id)!;
      // Our key is missing, not the receiver failing: no step towards disabling the endpoint.
      if (isUndecryptable(result)) continue;
      if (result.success) succeededEndpoints.add(row.endpointId);
      else if (result.statusCode === 410) goneEndpoints.add(row.endpointId);
      else failedEndpoints.add(row.endpointId);
    }
    for (const id of succeededEndpoints) failedEndpoints.delete(id);
    const failingTooLong = [...failedEndpoints].filter((id) => {
      const since = endpoints.get(id)!.failingSince;
      return since !== null && now - since.getTime() >= FAILING_DISABLE_MS;
    });

    const attempts = claimed.map((row) => {
      const result = results.get(row.id)!;
      return { id: newId("wha"), deliveryId: row.id, attempt: row.attempts, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error?.slice(0, 500) ?? null, success: result.success, createdAt: new Date(now), responseBody: result.responseBody ?? null };
    });
    await withTransaction(this.deps.database.db, async (tx) => {
      await recordAttempts(tx, attempts, outcomes);
      await markEndpointsHealth(tx, { succeeded: [...succeededEndpoints], failed: [...failedEndpoints], now });
      for (const [reason, ids] of [["gone", [...goneEndpoints]], ["failing", failingTooLong]] as const) {
        for (const id of ids) await disableEndpoint(tx, this.deps, endpoints.get(id)!, reason);
      }
    });
    if (this.metrics) {
      for (const outcome of outcomes) this.metrics.delivery(outcome.status === "succeeded" ? "succeeded" : outcome.status === "failed" ? "failed" : "retrying");
    }
  }
}

/** Disables an endpoint on the service's own decision (410 Gone, or 5 days of failures) and audits it. */
async function disableEndpoint(tx: Db, deps: Deps, endpoint: EndpointRow, reason: "gone" | "failing"): Promise<void> {
  if (!(await disableEnabledEndpoint(tx, endpoint.id, reason))) return;
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

