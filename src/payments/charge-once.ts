import { setTimeout as sleep } from "node:timers/promises";
import type { Ctx } from "../ctx.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { keyedHash } from "../lib/crypto.js";
import { AppError, conflict } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { PaymentProviderType, ProviderCall } from "../providers/types.js";
import { claimOrderCharge, findOrderCharge, markOrderChargePaid, releaseOrderCharge, takeOverOrderCharge, type OrderChargeClaim, type OrderChargeKey, type OrderContext } from "./store.js";

/** A claim older than this belongs to a request that died (crash, kill): another may take it over. */
export const ABANDONED_CLAIM_MS = 60_000;

export const alreadyPaid = () => conflict("Order already paid", "ALREADY_PAID");
export const inProgress = () => conflict("Request in progress", "REQUEST_IN_PROGRESS");

/** What a request that could not take the claim finds of its holder's work. */
export type HolderState<R> =
  | { answer: R } // done: its answer is this request's too
  | "running" // still at work: wait for it
  | "released" // let go (a decline, a refusal): try the claim again at once
  | "stuck"; // no use waiting (not the same request, or abandoned and not this request's to take over): 409 now

/**
 * The wait of a request finding another holding the claim it needs (CONTRACT §7: concurrent
 * duplicates act once), one loop for the card charge, the upsell charge, completion's CRM recording
 * and the CRM retry so their rules cannot drift apart. Each turn `claim` takes the claim and does the
 * work under it (null: another holds it), else `read` reads the holder's state (the card charge's
 * also takes a dead holder's claim over there). A holder still at work is polled, 25 ms doubling to
 * 400 ms, for config.waitForFirstMs (WAIT_FOR_FIRST_MS, 10 s), then 409 in progress: a buyer's
 * repeat should not hang on a provider, and every turn is bounded by it, so the loop always ends.
 */
export async function claimOrWait<R>(ctx: Ctx, turn: { claim(): Promise<{ answer: R } | null>; read(): Promise<HolderState<R>> }): Promise<R> {
  const waitUntil = Date.now() + ctx.config.waitForFirstMs;
  for (let pause = 25; ; pause = Math.min(pause * 2, 400)) {
    const mine = await turn.claim();
    if (mine) return mine.answer;
    const holder = await turn.read();
    if (typeof holder === "object") return holder.answer;
    if (holder === "stuck" || Date.now() + pause > waitUntil) throw inProgress();
    if (holder === "running") await sleep(pause);
  }
}

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
  let opened = charge.opened;
  // This turn's time and claim, which `read` takes an abandoned claim over with.
  let now: number;
  let claim: OrderChargeClaim;

  const chargeHeld = async (providerKey: string): Promise<{ answer: R }> => {
    if (charge.owner.completed) {
      await releaseOrderCharge(ctx.db, id, providerKey, "delete");
      throw alreadyPaid();
    }
    let reply: R;
    const outcome: ChargeResult = { charged: true };
    try {
      reply = await pay({ ...charge.call, idempotencyKey: providerKey }, outcome);
    } catch (error) {
      const certain = error instanceof AppError && error.code !== "PROVIDER_ERROR";
      await releaseOrderCharge(ctx.db, id, providerKey, certain ? "delete" : "abandon");
      throw error;
    }
    if (outcome.charged) await markOrderChargePaid(ctx.db, id, providerKey, reply as Record<string, unknown>, new Date(ctx.clock.now()));
    else await releaseOrderCharge(ctx.db, id, providerKey, "delete");
    return { answer: reply };
  };

  return claimOrWait(ctx, {
    claim: async () => {
      now = ctx.clock.now();
      claim = { ...id, provider: charge.provider, requestHash, providerKey: opened?.providerKey ?? newId("chg"), createdAt: opened?.createdAt ?? new Date(now) };
      const held = opened ? opened.held : await claimOrderCharge(ctx.db, claim);
      opened = undefined;
      return held ? chargeHeld(claim.providerKey) : null;
    },
    read: async () => {
      const first = await findOrderCharge(ctx.db, id);
      if (!first) return "released"; // deleted (declined) between the insert and the read
      if (first.state === "paid") {
        if (first.requestHash === requestHash && first.reply) return { answer: first.reply as R };
        throw alreadyPaid();
      }
      if (first.createdAt.getTime() < now - ABANDONED_CLAIM_MS) {
        // Same request: the same provider key, so the provider answers the dead request's charge if it made one.
        const providerKey = first.requestHash === requestHash ? first.providerKey : claim.providerKey;
        if (await takeOverOrderCharge(ctx.db, { ...claim, providerKey }, first.createdAt)) return chargeHeld(providerKey);
      }
      return first.requestHash === requestHash ? "running" : "stuck";
    },
  });
}
