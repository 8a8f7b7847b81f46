import Fastify, { LogController, type FastifyBaseLogger } from "fastify";
import cookie from "@fastify/cookie";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Deps } from "./ctx.js";
import { fastifyTrustProxy } from "./config/trust-proxy.js";
import { registerCallerResolvers } from "./http/auth.js";
import { registerContentEncoding } from "./http/content-encoding.js";
import { frameworkErrorRenderer, registerErrorHandling } from "./http/errors.js";
import { registerErrorDocs } from "./http/error-docs.js";
import { registerIdempotency } from "./http/idempotency.js";
import { registerApiDescription } from "./http/openapi.js";
import { requestLineLogger } from "./lib/logger.js";
import { AdmissionControl, registerAdmission } from "./http/admission.js";
import { registerNoStoreForCookies } from "./http/no-store.js";
import { registerRateLimit, RedisRateLimitStore, type RateLimitStore } from "./http/rate-limit.js";
import { registerSecurityHeaders } from "./http/security-headers.js";
import { requestIdOf } from "./http/request-id.js";
import { ErrorBody } from "./http/schemas.js";
import { registerValidation } from "./http/validation.js";
import type { App } from "./http/types.js";
import { registerCheckoutRoutes } from "./checkout/routes.js";
import { registerProviderRoutes } from "./payments/routes.js";
import { registerIdentityRoutes } from "./identity/routes.js";
import { registerUpsellRoutes } from "./upsell/routes.js";
import { sessionCaller, SESSION_ORIGIN_RULE } from "./identity/session-caller.js";
import { PENDING_LOGIN_COOKIE, SESSION_COOKIE } from "./identity/policy.js";
import { SALESPERSON_COOKIE } from "./salespeople/portal.js";
import { registerDirectoryRoutes } from "./admin/directory-routes.js";
import { registerAuditRoutes } from "./audit/routes.js";
import { registerCommissionRoutes } from "./commissions/routes.js";
import { registerSalespeopleRoutes } from "./salespeople/routes.js";
import { registerLinkRoutes } from "./admin/link-routes.js";
import { registerSettingsRoutes } from "./admin/settings/routes.js";
import { registerDashboardRoutes } from "./admin/dashboard/routes.js";
import { registerCrmAdminRoutes } from "./admin/crm/routes.js";
import { registerWebhookRoutes } from "./webhooks/routes.js";
import { registerIncomingWebhookRoutes } from "./payments/incoming/routes.js";
import { WebhookWorker } from "./webhooks/worker.js";
import { MailSender } from "./identity/mail.js";
import { JobRunner } from "./jobs/runner.js";
import { DAY_MS, housekeepingJob, type Prune } from "./jobs/housekeeping.js";
import { purgeExpiredIdempotencyKeys } from "./http/idempotency-store.js";
import { pruneSentMail } from "./identity/mail-store.js";
import { forgetOldChargeReplies } from "./payments/store.js";
import { pruneDeliveredDeliveries, pruneDispatchedEvents } from "./webhooks/store.js";
import { EVENT_RETENTION_DAYS } from "./webhooks/events.js";
import { eventWebhooksDocument, registerEventRoutes } from "./webhooks/events-routes.js";
import { registerDomainRoutes } from "./domains/routes.js";
import { registerMarketingRoutes } from "./marketing/routes.js";
import { registerWebRoutes } from "./pages/routes.js";
import { registerResponseCompression } from "./pages/compression.js";
import { Metrics, type JobBacklog } from "./metrics/metrics.js";
import { buildInfo } from "./metrics/build-info.js";
import { registerMetricsRoute, registerRequestMetrics } from "./metrics/routes.js";
import { apiKeyCaller } from "./merchant-credentials/api-key-caller.js";
import { registerApiVersions } from "./merchant-credentials/api-version.js";
import { registerMerchantCredentialRoutes } from "./merchant-credentials/routes.js";
import { assertMerchantProof } from "./merchant-credentials/proof.js";
import { registerMerchantApiRoutes } from "./merchant-api/routes.js";
import { receiptsJob } from "./receipts/receipts.js";
import { RECEIPT_EVENTS } from "./receipts/store.js";
import { registerReceiptRoutes } from "./receipts/routes.js";
import { refundReconcilerJob } from "./orders/refund-reconciler.js";
import { readingsOf } from "./payments/routing/orchestration.js";
import { recordDisputeNotice } from "./orders/disputes/record.js";
import { brandsOfDisputes, findDisputedCharge } from "./orders/store.js";
import { registerOrderRoutes } from "./orders/routes.js";
import { registerDisputeRoutes } from "./orders/disputes/routes.js";
import { registerFunnelRoutes } from "./funnels/routes.js";
import { registerRoutingRoutes } from "./orchestration/routes.js";
import { registerAnalyticsRoutes } from "./orchestration/analytics-routes.js";
import { approvalStatsFoldJob } from "./payments/approval-stats.js";

export interface AppOptions {
  rateLimitStore: RateLimitStore;
  /**
   * The background jobs (webhook delivery, mail, housekeeping) run in every process (`background`, the
   * default). Tests pass `manual` and drive them with `app.webhookWorker.deliverDue()` or
   * `app.jobs.trigger(name)` and their clock instead of timers. `off` (WORKERS=off): none runs, and
   * `trigger` does nothing.
   */
  jobs?: "background" | "manual" | "off";
}

declare module "fastify" {
  interface FastifyInstance {
    /** The background job runner (src/jobs/runner.ts). */
    jobs: JobRunner;
    webhookWorker: WebhookWorker;
    metrics: Metrics;
    /** Starts the drain: /readyz answers 503 and every answer closes its connection (main.ts, on SIGTERM). */
    drain(): void;
  }
}

const BODY_LIMIT = 1024 * 1024;

/** The tables that only grow, each pruned by its feature's own statement, in this order (jobs/housekeeping.ts). */
export const HOUSEKEEPING_PRUNES: readonly Prune[] = [
  // Keys carry their own expiry (24 h); the request path only clears the key it is asked for.
  { table: "idempotency_keys", keep: 0, run: purgeExpiredIdempotencyKeys },
  { table: "webhook_deliveries", keep: "retention", run: pruneDeliveredDeliveries },
  // The events API lists events for 30 days (docs/webhooks.md "Events API"), also when RETENTION_DAYS is shorter.
  { table: "outbox_events", keep: "retention", keepAtLeast: EVENT_RETENTION_DAYS * DAY_MS, run: pruneDispatchedEvents },
  { table: "mail_outbox", keep: "retention", run: pruneSentMail },
  // A paid order's first answer is replayed for 24 hours, like an Idempotency-Key's; the claim itself stays.
  { table: "order_charges", keep: DAY_MS, run: forgetOldChargeReplies },
];

/** The background jobs whose work waits in a table (background_job_backlog_* in /metrics). */
const JOB_BACKLOGS: readonly JobBacklog[] = [
  { job: "mail", table: "mail_outbox", where: "status = 'pending'" },
  { job: "receipts", table: "outbox_events", where: `receipt_at is null and type in (${RECEIPT_EVENTS.map((type) => `'${type}'`).join(", ")})` },
  { job: "refund-reconciler", table: "refunds", where: "status = 'pending'" },
];

/** The whole service as one Fastify instance; main.ts and the tests build it the same way. */
export async function buildApp(deps: Deps, options: AppOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One line per request (below) instead of Fastify's two: per-request logging costs throughput.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "requestId" }),
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT,
    frameworkErrors: frameworkErrorRenderer(deps.config.publicBaseUrl),
    trustProxy: fastifyTrustProxy(deps.config.trustProxy),
    // A request reaching a closing instance is still served (with Connection: close), not shed with
    // a 503: shutdown drops nothing, the client moves to another instance on its next connection.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerValidation(app);
  registerContentEncoding(app, BODY_LIMIT);
  registerErrorHandling(app, deps.config.publicBaseUrl);
  registerSecurityHeaders(app, deps.config);
  // Before any route: each route gets its metrics series when it is registered.
  const rateLimitRedis = options.rateLimitStore instanceof RedisRateLimitStore ? options.rateLimitStore.guard : null;
  const metrics = new Metrics({ database: deps.database, clock: deps.clock, rateLimitRedis, build: buildInfo(deps.config.buildCommit), jobBacklogs: JOB_BACKLOGS, orchestration: readingsOf(deps.orchestration) });
  app.decorate("metrics", metrics);
  registerRequestMetrics(app, metrics);
  app.addSchema(ErrorBody);

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  // Issue 20: beyond capacity, new checkouts are refused at once (503 OVERLOADED) before anything else runs.
  const { poolQueue, onConnectionWait } = deps.database;
  const admission = new AdmissionControl({ settings: deps.config.admission, poolQueue, onConnectionWait, registry: metrics.registry });
  registerAdmission(app, admission, deps.config.admission.retryAfterSeconds);
  const requestLine = requestLineLogger(deps.log);
  app.addHook("onResponse", async (request, reply) => {
    // The route pattern, not the raw URL: paths can carry checkout tokens.
    // client: request.ip, the address TRUST_PROXY resolves (what rate limits and audit use).
    requestLine.info({ requestId: request.id, method: request.method, route: request.routeOptions.url ?? "(unknown)", status: reply.statusCode, ms: Math.round(reply.elapsedTime), client: request.ip }, "request");
  });

  // Before any route: every route registered after it is described (operationId, security, statuses).
  await registerApiDescription(app, {
    publicBaseUrl: deps.config.publicBaseUrl,
    sessionCookies: [
      { scheme: "adminSession", cookie: SESSION_COOKIE, under: ["/api/admin/", "/api/auth/2fa/"], description: `The administration session (POST /api/admin/auth). ${SESSION_ORIGIN_RULE}` },
      { scheme: "salespersonSession", cookie: SALESPERSON_COOKIE, under: ["/api/salesperson/"], description: "The salesperson portal's session (POST /api/salesperson/auth)." },
    ],
    otherCookies: [{ scheme: "pendingSignIn", cookie: PENDING_LOGIN_COOKIE, description: "A sign-in waiting for its second factor (POST /api/admin/auth answered requiresTwoFactor)." }],
    // Issue 33: what the service POSTs to a merchant's endpoints, one entry per event type.
    webhooks: eventWebhooksDocument(),
  });
  registerErrorDocs(app);

  registerMetricsRoute(app, metrics);

  // Drain (issue 21): on SIGTERM the load balancer is told first (/readyz 503) while this instance still
  // serves; keep-alive clients are moved off by closing each connection after its answer.
  let draining = false;
  app.decorate("drain", () => {
    draining = true;
  });
  app.addHook("onSend", async (_request, reply) => {
    if (draining) reply.header("connection", "close");
  });
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    if (draining) return reply.code(503).send({ status: "draining", error: "Shutting down", code: "SERVICE_UNAVAILABLE" });
    try {
      await deps.database.ping();
      return { status: "ready" };
    } catch {
      return reply.code(503).send({ status: "unavailable", error: "Database unreachable", code: "SERVICE_UNAVAILABLE" });
    }
  });

  app.get("/healthz", { schema: { hide: true } }, async (_request, reply) => {
    try {
      await deps.database.ping();
      return { status: "ok" };
    } catch {
      return reply.code(503).send({ status: "unavailable", error: "Database unreachable", code: "SERVICE_UNAVAILABLE" });
    }
  });

  await app.register(cookie);
  registerNoStoreForCookies(app);
  // Who calls (http/auth.ts), checked before rate limiting (hooks run in registration order): a valid
  // session gets the authenticated limit, a valid API key its own budget (CONTRACT §41), winning over a cookie.
  registerCallerResolvers(app, [sessionCaller(deps), apiKeyCaller(deps)]);
  // After the key is looked up (its pinned version), before rate limiting (a 429 names its version too).
  registerApiVersions(app);
  registerRateLimit(app, { store: options.rateLimitStore, clock: deps.clock, ...deps.config.rateLimit });
  registerIdempotency(app, { db: deps.database.db, clock: deps.clock, hashKey: deps.config.encryptionKey });
  // After idempotency: replays are stored uncompressed, each answer compressed for its own client.
  registerResponseCompression(app);

  // Before the routes: identity routes trigger the mail job, webhook routes use the worker.
  const jobs = new JobRunner(deps, { failed: (job, kind, count) => metrics.jobFailed(job, kind, count) });
  const worker = new WebhookWorker(deps, jobs.signal, metrics);
  const mail = new MailSender({ db: deps.database.db, config: deps.config, clock: deps.clock, log: deps.log });
  jobs.add(worker.job).add(mail.job).add(housekeepingJob(deps.database.db, HOUSEKEEPING_PRUNES, deps.config.retentionDays)).add(refundReconcilerJob(deps));
  jobs.add(receiptsJob(deps.database.db, () => void jobs.trigger("mail")));
  jobs.add(approvalStatsFoldJob(deps.database.db));
  app.decorate("jobs", jobs);
  app.decorate("webhookWorker", worker);
  if ((options.jobs ?? "background") === "background") app.addHook("onReady", async () => jobs.start());
  if (options.jobs === "off") jobs.hold();
  app.addHook("onClose", async () => {
    await jobs.stop();
    mail.close();
  });

  registerCheckoutRoutes(app, deps);
  // payments/ knows no API keys: the merchant proof a real upsell charge needs is handed in.
  registerProviderRoutes(app, deps, { merchantProof: assertMerchantProof });
  registerIdentityRoutes(app, deps);
  registerUpsellRoutes(app, deps);
  registerDirectoryRoutes(app, deps);
  registerAuditRoutes(app, deps);
  registerCommissionRoutes(app, deps);
  registerSalespeopleRoutes(app, deps);
  registerLinkRoutes(app, deps);
  registerSettingsRoutes(app, deps);
  registerDashboardRoutes(app, deps);
  registerCrmAdminRoutes(app, deps);
  registerDomainRoutes(app, deps);
  registerMarketingRoutes(app, deps);
  registerFunnelRoutes(app, deps);
  registerRoutingRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerMerchantCredentialRoutes(app, deps);
  registerMerchantApiRoutes(app, deps);
  registerOrderRoutes(app, deps);
  registerReceiptRoutes(app, deps);
  registerDisputeRoutes(app, deps);

  registerWebhookRoutes(app, deps, worker);
  registerEventRoutes(app, deps, worker);
  // Provider notifications are payments'; the dispute notices they carry are the disputes feature's.
  await registerIncomingWebhookRoutes(app, deps, { disputeNotices: { brandsOf: brandsOfDisputes, findCharge: findDisputedCharge, record: recordDisputeNotice } });
  await registerWebRoutes(app, deps);

  return app;
}
