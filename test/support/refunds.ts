import type { Ctx } from "../../src/ctx.js";
import { askProviderAgain } from "../../src/orders/refund-reconciler.js";
import { findRefund } from "../../src/orders/store.js";
import type { RefundOutcome } from "../../src/providers/types.js";
import type { TestApp } from "./app.js";

/** The reconciler's question for refund `refundId` (after a crash or a 502): the provider asked again with the same idempotency key. Its outcome, nothing settled. */
export async function repeatRefund(t: TestApp, refundId: string): Promise<RefundOutcome> {
  const db = t.deps.database.db;
  const ctx: Ctx = { db, clock: t.clock, log: t.deps.log, config: t.deps.config, providers: t.deps.providers, orchestration: t.deps.orchestration, actor: { type: "system" } };
  return (await askProviderAgain(ctx, (await findRefund(db, refundId))!)).outcome;
}
