import type { Ctx, Deps } from "../ctx.js";
import { refunds } from "../db/schema/index.js";
import { claimDue } from "../jobs/lease.js";
import type { Job, JobContext } from "../jobs/runner.js";
import { ProviderError, type RefundOutcome } from "../providers/types.js";
import { refundAt, refundProviderOf, settleRefundWith } from "./refunds.js";
import { findOrderRow, rescheduleRefund, type OrderRow, type RefundRow } from "./store.js";

/** A claimed refund is not looked at by another process for this long (the provider call fits in it). */
const LEASE_MS = 120_000;
/** Between looks at a refund the provider keeps failing: doubling from 1 minute up to 1 hour. */
const retryInMs = (attempts: number) => Math.min(3_600_000, 60_000 * 2 ** Math.max(0, attempts - 1));
const BATCH = 20;
/**
 * intent_gateway keeps an idempotency key for 24 hours: a repeat after that could refund twice. Past
 * this, a refund still pending is left (holding its amount) for a person, and logged once a day.
 */
export const RECONCILE_GIVE_UP_MS = 23 * 3_600_000;

/**
 * Asks the provider again about a pending refund, with its id as the idempotency key, through the
 * adapter the request used (refundProviderOf). Every adapter answers a repeat with the first outcome.
 */
export async function askProviderAgain(ctx: Ctx, refund: RefundRow): Promise<{ outcome: RefundOutcome; charge: OrderRow; checkout: OrderRow }> {
  const charge = (await findOrderRow(ctx.db, refund.orderRef))!;
  const checkout = charge.parentOrderId ? (await findOrderRow(ctx.db, charge.parentOrderId))! : charge;
  const outcome = await refundAt(await refundProviderOf(ctx, refund.brandId, charge, checkout), charge, refund);
  return { outcome, charge, checkout };
}

async function reconcileOne(ctx: Ctx, refund: RefundRow, now: number): Promise<void> {
  if (now - refund.createdAt.getTime() > RECONCILE_GIVE_UP_MS) {
    ctx.log.error({ refundId: refund.id, provider: refund.provider, createdAt: refund.createdAt }, "refund pending past the reconciler's window: check it at the provider");
    await rescheduleRefund(ctx.db, refund.id, now + 24 * 3_600_000);
    return;
  }
  const { outcome, charge, checkout } = await askProviderAgain(ctx, refund);
  await settleRefundWith(ctx, { refund, charge, checkout }, outcome);
  ctx.log.info({ refundId: refund.id, attempts: refund.attempts, status: outcome.status }, "refund reconciled");
}

/** One pass: claims due pending refunds and settles each from the provider's answer. True when more may be due. */
export async function reconcilePendingRefunds(deps: Pick<Deps, "config" | "providers" | "orchestration">, ctx: Pick<Ctx, "db"> & JobContext): Promise<boolean> {
  const due = await claimDue(ctx.db, refunds, { now: ctx.clock.now(), leaseMs: LEASE_MS, limit: BATCH });
  const system: Ctx = { db: ctx.db, clock: ctx.clock, log: ctx.log, config: deps.config, providers: deps.providers, orchestration: deps.orchestration, actor: { type: "system" } };
  for (const refund of due) {
    if (ctx.signal.aborted) break;
    try {
      await reconcileOne(system, refund, ctx.clock.now());
    } catch (error) {
      // The provider is still failing: look again later. Anything else (database away) fails the pass.
      if (!(error instanceof ProviderError)) throw error;
      ctx.failed();
      await rescheduleRefund(ctx.db, refund.id, ctx.clock.now() + retryInMs(refund.attempts));
      ctx.log.warn({ refundId: refund.id, attempts: refund.attempts, provider: error.provider, err: error.message }, "refund still pending at the provider");
    }
  }
  return due.length === BATCH;
}

/** The runner's `refund-reconciler` job: a pass every 30 s in each process (claims keep them apart). */
export function refundReconcilerJob(deps: Pick<Deps, "config" | "providers" | "orchestration" | "database">): Job {
  return { name: "refund-reconciler", everyMs: 30_000, run: (ctx) => reconcilePendingRefunds(deps, { ...ctx, db: deps.database.db }) };
}
