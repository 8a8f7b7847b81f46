import { setTimeout as sleep } from "node:timers/promises";
import type { Ctx } from "../ctx.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { keyedHash } from "../lib/crypto.js";
import { AppError, conflict } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { PaymentProviderType, ProviderCall } from "../providers/types.js";
import { claimOrderCharge, findOrderCharge, markOrderChargePaid, releaseOrderCharge, takeOverOrderCharge, type OrderChargeKey, type OrderContext } from "./store.js";

/** A `charging` claim older than this belongs to a request that died (crash, kill): another may take it over. */
export const ABANDONED_CLAIM_MS = 60_000;
/** How long an identical repeat waits for the first request's answer before answering 409 in progress. */
export const WAIT_FOR_FIRST_MS = 10_000;

export const alreadyPaid = () => conflict("Order already paid", "ALREADY_PAID");
export const inProgress = () => conflict("Request in progress", "REQUEST_IN_PROGRESS");

export interface ChargeClaim {
  provider: PaymentProviderType;
  /** Whose order it is, and whether its checkout is completed already (then nothing may charge it again). */
  owner: Pick<OrderContext, "brandId" | "completed">;
  orderId: string;
  /** The request as the caller sent it; an identical repeat gets the first answer. */
  request: unknown;
  /** The provider call; the charge gets it with this claim's idempotency key. */
  call: ProviderCall;
  /** The first claim, when the caller made it already (openOrderCharge): its key and whether it is held. */
  opened?: { held: boolean; providerKey: string; createdAt: Date };
}

/** The hash an identical repeat of a charge request is recognised by. */
export const chargeRequestHash = (ctx: Ctx, request: unknown) => keyedHash(canonicalJson(request ?? null), ctx.config.encryptionKey);

/** What the charge set on its way out: `charged: false` for an answer that moved no money (an intent awaiting 3-D Secure). */
export interface ChargeResult {
  charged: boolean;
}

/**
 * CONTRACT §37: a card-taking endpoint charges a (brand, orderId) at most once successfully. A claim
 * row is inserted before the provider is called (ON CONFLICT: one winner across processes). The
 * winner charges: success keeps its answer, replayed to an identical repeat (which waits for it when
 * it is still running); any other request for that order is 409 ALREADY_PAID. A decline or refusal
 * deletes the claim, so the buyer may try again. An uncertain end (provider error, crash) leaves the
 * claim for the next attempt with the same provider idempotency key, so a provider that charged
 * answers that charge again instead of making a second one.
 */
export async function chargeOnce<R>(ctx: Ctx, charge: ChargeClaim, pay: (call: ProviderCall, outcome: ChargeResult) => Promise<R>): Promise<R> {
  const id: OrderChargeKey = { brandId: charge.owner.brandId, orderId: charge.orderId };
  const requestHash = chargeRequestHash(ctx, charge.request);
  const waitUntil = Date.now() + WAIT_FOR_FIRST_MS;

  for (let pause = 25, opened = charge.opened; ; pause = Math.min(pause * 2, 400), opened = undefined) {
    const now = ctx.clock.now();
    const claim = { ...id, provider: charge.provider, requestHash, providerKey: opened?.providerKey ?? newId("chg"), createdAt: opened?.createdAt ?? new Date(now) };
    let held = opened ? opened.held : await claimOrderCharge(ctx.db, claim);
    if (!held) {
      const first = await findOrderCharge(ctx.db, id);
      if (!first) continue; // deleted (declined) between the insert and the read: try again
      if (first.state === "paid") {
        if (first.requestHash === requestHash && first.reply) return first.reply as R;
        throw alreadyPaid();
      }
      if (first.createdAt.getTime() < now - ABANDONED_CLAIM_MS) {
        // Same request: the same provider key, so the provider answers the dead request's charge if it made one.
        const providerKey = first.requestHash === requestHash ? first.providerKey : claim.providerKey;
        held = await takeOverOrderCharge(ctx.db, { ...claim, providerKey }, first.createdAt);
        if (held) claim.providerKey = providerKey;
      }
      if (!held) {
        if (first.requestHash !== requestHash || Date.now() + pause > waitUntil) throw inProgress();
        await sleep(pause);
        continue;
      }
    }
    if (charge.owner.completed) {
      await releaseOrderCharge(ctx.db, id, claim.providerKey, "delete");
      throw alreadyPaid();
    }
    let reply: R;
    const outcome: ChargeResult = { charged: true };
    try {
      reply = await pay({ ...charge.call, idempotencyKey: claim.providerKey }, outcome);
    } catch (error) {
      const certain = error instanceof AppError && error.code !== "PROVIDER_ERROR";
      await releaseOrderCharge(ctx.db, id, claim.providerKey, certain ? "delete" : "abandon");
      throw error;
    }
    if (outcome.charged) await markOrderChargePaid(ctx.db, id, claim.providerKey, reply as Record<string, unknown>, new Date(ctx.clock.now()));
    else await releaseOrderCharge(ctx.db, id, claim.providerKey, "delete");
    return reply;
  }
}
