import { createHash } from "node:crypto";
import type { Ctx } from "../../ctx.js";
import type { Db } from "../../db/client.js";
import { withTransaction } from "../../db/transaction.js";
import { AppError } from "../../lib/errors.js";
import { faultPoint } from "../../lib/fault-points.js";
import { newId } from "../../lib/ids.js";
import { assertCardAcceptable, cardLast4 } from "../../providers/demo/cards.js";
import { ProviderError, type CardInput, type PaymentProviderType } from "../../providers/types.js";
import { approvalStatsJson, recordApprovalStats } from "../approval-stats.js";
import { ABANDONED_CLAIM_MS, alreadyPaid, chargeRequestHash, claimOrWait } from "../charge-once.js";
import { normaliseDecline, normaliseFailure, type NormalisedDecline } from "../decline-codes.js";
import { assertCountsUnderDeclineLimit, declineWindowStart, paymentFailed, recordDecline } from "../declines.js";
import { providerNotAllowed } from "../errors.js";
import { cardFactsOf, type CardFacts } from "../routing/route.js";
import { claimOrderCharge, countDeclines, findOrderCharge, releaseOrderCharge, takeOverOrderCharge, type OrderChargeKey } from "../store.js";
import { cardTaking, chargeAt, honoursIdempotencyKey, type CascadeOrder, type CascadeOutcome } from "./charge-at.js";
import { finishPaid, insertAttempt, moveCheckout, openCascade, savePlan, type AttemptRow, type CascadePlan, type PayCheckout } from "./store.js";

export type { CascadePlan, PayCheckout } from "./store.js";

/** A pay request as the buyer's page sends it (the amount is the checkout's, never the client's). */
export interface PayRequest {
  orderId: string;
  card: CardInput;
  customer: CascadeOrder["customer"];
  billingAddress?: CascadeOrder["billingAddress"];
  shippingAddress?: CascadeOrder["shippingAddress"];
  returnUrl?: string;
}

export interface AttemptSummary {
  provider: string;
  result: "approved" | "declined" | "failed" | "requires_action";
  declineCode: string | null;
}

export interface PayReply {
  status: "succeeded" | "requires_action";
  provider: string;
  transactionId: string;
  providerOrderId: string;
  orderId: string;
  demo: boolean;
  nextAction?: { url: string };
  attempts: AttemptSummary[];
}

/** The route decision of a pay (checkout/pay.ts: the checkout's allowed providers through route()). */
export type Planner = (checkout: PayCheckout, card: CardFacts) => Promise<CascadePlan>;

/** What the caller (checkout/) answers where the checkout layer owns the error. */
export interface PayHooks {
  plan: Planner;
  checkoutNotFound: () => Error;
}

/** The attempt row's id: one per claim key and provider, so a takeover asking a provider again records it once. */
const attemptId = (providerKey: string, provider: string) => `pat_${createHash("sha256").update(`${providerKey}:${provider}`).digest("base64url").slice(0, 22)}`;

/** The provider's idempotency key within a cascade: the claim's key and the provider (CONTRACT §37 across the cascade). */
export const cascadeKey = (providerKey: string, provider: string) => `${providerKey}:${provider}`;

/** The claim the cascade holds: its key, and its stored plan (null: this request plans). */
interface HeldClaim {
  providerKey: string;
  plan: CascadePlan | null;
  /** Taken over from a request that died: whatever goes wrong before a provider answers leaves the claim (and its key) for the next one. */
  takenOver: boolean;
  /** Decline counts read with the claim (only the first statement's). */
  declineCounts?: { byOrder: number; byAddress: number };
}

/**
 * POST /api/checkout/pay (issue 34 item 4, CONTRACT §37, §42): the card charged through the route's
 * providers in one request. One order_charges claim covers the whole cascade: an identical repeat
 * waits for it or replays its answer, another request for a paid order is 409 ALREADY_PAID, a
 * completed order is never charged. Each provider is asked at most once per claim, with the key
 * `<claim key>:<provider>`, in the order stored with the claim before the first call (a takeover
 * after a crash asks the same providers in the same order with the same keys, so a provider that
 * charged answers that charge). A soft decline moves on; a hard decline, a 3-D Secure step, or the
 * end of the list ends it; a provider that failed moves on only when it certainly charged nothing,
 * else it is asked once more and a second failure is 502 with the claim left for a same-key retry.
 */
export async function payByCascade(ctx: Ctx, request: PayRequest, hooks: PayHooks): Promise<PayReply> {
  const requestHash = chargeRequestHash(ctx, request);
  const since = declineWindowStart(ctx);
  const firstKey = newId("chg");
  const opened = await openCascade(
    ctx.db,
    { orderId: request.orderId, fallbackProvider: "unplanned", requestHash, providerKey: firstKey, createdAt: new Date(ctx.clock.now()) },
    { clientAddress: ctx.clientAddress ?? null, since },
    ctx.config.paymentMode === "live",
  );
  const checkout = opened.checkout;
  if (!checkout) throw hooks.checkoutNotFound();
  const id: OrderChargeKey = { brandId: checkout.brandId, orderId: request.orderId };
  // The claim's provider as first inserted: the plan is stored only when it is more than this one.
  const claimProvider = checkout.claimProvider ?? checkout.provider ?? "unplanned";
  let firstTurn = true;
  let now = ctx.clock.now();

  return claimOrWait<PayReply>(ctx, {
    claim: async () => {
      now = ctx.clock.now();
      if (firstTurn) {
        firstTurn = false;
        if (!opened.held) return null;
        return { answer: await cascade(ctx, request, checkout, id, claimProvider, { providerKey: firstKey, plan: null, takenOver: false, declineCounts: opened.declineCounts }, hooks) };
      }
      if (checkout.completed) return null;
      const providerKey = newId("chg");
      const held = await claimOrderCharge(ctx.db, { ...id, provider: claimProvider, requestHash, providerKey, createdAt: new Date(now) });
      return held ? { answer: await cascade(ctx, request, checkout, id, claimProvider, { providerKey, plan: null, takenOver: false }, hooks) } : null;
    },
    read: async () => {
      const first = await findOrderCharge(ctx.db, id);
      if (!first) {
        // A completed order is never charged again (CONTRACT §37), also when its claim is gone.
        if (checkout.completed) throw alreadyPaid();
        return "released";
      }
      if (first.state === "paid") {
        if (first.requestHash === requestHash && first.reply) return { answer: first.reply as unknown as PayReply };
        throw alreadyPaid();
      }
      if (first.createdAt.getTime() < now - ABANDONED_CLAIM_MS) {
        // A dead request's claim: its key and its plan, whoever takes it over, so each provider it may
        // have charged is asked again with the same key and answers that charge (never a second one).
        const plan = first.plan ?? (cardTaking(first.provider) ? singlePlan(first.provider) : null);
        const taken = await takeOverOrderCharge(ctx.db, { ...id, provider: first.provider, requestHash, providerKey: first.providerKey, createdAt: new Date(now) }, first.createdAt);
        if (taken) return { answer: await cascade(ctx, request, checkout, id, first.provider, { providerKey: first.providerKey, plan, takenOver: plan !== null }, hooks) };
      }
      return first.requestHash === requestHash ? "running" : "stuck";
    },
  });
}

const singlePlan = (provider: string): CascadePlan => ({ providers: [provider], ruleId: null, ruleName: "default", reason: "the claim's provider" });

/** Lets go of the held claim: `delete` when nothing was charged under it, `abandon` when a provider may have (the next request takes it over at once, with its key). */
const release = (db: Db, id: OrderChargeKey, held: HeldClaim, how: "delete" | "abandon") => releaseOrderCharge(db, id, held.providerKey, how);

async function cascade(ctx: Ctx, request: PayRequest, checkout: PayCheckout, id: OrderChargeKey, claimProvider: string, held: HeldClaim, hooks: PayHooks): Promise<PayReply> {
  const facts = cardFactsOf(request.card.cardNumber);
  let plan: CascadePlan;
  try {
    // CONTRACT §21 before any provider is called; then the card as no gateway would take it (§25).
    assertCountsUnderDeclineLimit(ctx, held.declineCounts ?? (await countDeclines(ctx.db, request.orderId, ctx.clientAddress ?? null, declineWindowStart(ctx))));
    assertCardAcceptable(request.card, ctx.clock.now());
    plan = held.plan ?? (await hooks.plan(checkout, facts));
    if (plan.providers.length === 0) throw providerNotAllowed();
    // Stored before the first provider call when its first is not the claim's provider; else before the
    // cascade's second provider (a takeover meanwhile asks the claim's provider alone, the only one asked).
    if (!held.plan && plan.providers[0] !== claimProvider) await savePlan(ctx.db, id, held.providerKey, plan);
  } catch (error) {
    // Before any provider call of this request; a taken-over claim keeps its key for whoever comes next.
    await release(ctx.db, id, held, held.takenOver ? "abandon" : "delete");
    throw error;
  }

  const livemode = checkout.livemode ?? ctx.config.paymentMode === "live";
  const order: CascadeOrder = {
    orderId: request.orderId,
    checkoutId: checkout.checkoutId,
    amountCents: checkout.amountCents,
    currency: checkout.currency,
    productName: checkout.productName ?? "",
    lineItems: checkout.lineItems ?? [],
    customer: request.customer,
    billingAddress: request.billingAddress ?? null,
    shippingAddress: request.shippingAddress ?? null,
    initializedAt: { provider: checkout.provider, providerOrderId: checkout.providerOrderId },
    returnUrl: request.returnUrl,
    keepProviderOrder: async (provider, providerOrderId) => {
      await moveCheckout(ctx.db, checkout.checkoutId, provider, providerOrderId, new Date(ctx.clock.now()));
      order.initializedAt = { provider, providerOrderId };
    },
  };
  let planSaved = held.plan !== null || plan.providers[0] !== claimProvider;
  /** Before a second provider is asked, the plan is on the claim (in the transaction of the attempt that moves on). */
  const keepPlan = async (tx: Db) => {
    if (planSaved) return;
    await savePlan(tx, id, held.providerKey, plan);
    planSaved = true;
  };
  const attempts: AttemptSummary[] = [];
  let lastDecline: { provider: PaymentProviderType; reason: string; decline: NormalisedDecline } | null = null;
  let softDeclined = false;

  const attemptRow = (provider: string, index: number, result: AttemptRow["result"], decline: NormalisedDecline | null, transactionId: string | null): AttemptRow => ({
    id: attemptId(held.providerKey, provider),
    brandId: checkout.brandId,
    livemode,
    orderId: request.orderId,
    checkoutId: checkout.checkoutId,
    provider,
    cascadeIndex: index,
    ruleId: plan.ruleId,
    ruleName: plan.ruleName,
    routeReason: plan.reason,
    result,
    declineCode: decline?.code ?? null,
    declineClass: decline?.class ?? null,
    providerCode: decline?.providerCode ?? null,
    amountCents: checkout.amountCents,
    currency: checkout.currency,
    cardBrand: facts.brand,
    cardBin: facts.bin.slice(0, 6),
    cardLast4: cardLast4(request.card.cardNumber),
    binCountry: facts.binCountry,
    transactionId,
    createdAt: new Date(ctx.clock.now()),
  });
  const statsOf = (row: AttemptRow, result: "approved" | "declined" | "failed") => ({
    brandId: row.brandId,
    livemode: row.livemode,
    provider: row.provider as PaymentProviderType,
    at: row.createdAt,
    result,
    declineCode: row.declineCode ?? null,
    cardBrand: row.cardBrand ?? null,
    binCountry: row.binCountry ?? null,
    amountCents: row.amountCents,
    currency: row.currency,
    recovered: result === "approved" && softDeclined,
  });
  /** One attempt's row and its stats, in one transaction (with `more`: the end of the request's writes). */
  const recordAttempt = async (row: AttemptRow, result: "approved" | "declined" | "failed", more?: (tx: Db) => Promise<void>) => {
    await withTransaction(ctx.db, async (tx) => {
      if (await insertAttempt(tx, row)) await recordApprovalStats(tx, statsOf(row, result));
      await more?.(tx);
    });
    await ctx.orchestration.record({ brandId: checkout.brandId, livemode, provider: row.provider as PaymentProviderType, cardBrand: facts.brand, currency: checkout.currency, result });
  };
  /** The request ends declined: the declines count once (one payment_declines row, one payment.failed listing the attempts). */
  const endDeclined = async (tx: Db) => {
    await recordDecline(ctx, tx, {
      provider: lastDecline!.provider,
      livemode,
      orderId: request.orderId,
      reason: lastDecline!.reason,
      card: request.card,
      amountCents: checkout.amountCents,
      currency: checkout.currency,
      owner: { brandId: checkout.brandId, checkoutId: checkout.checkoutId, webhookUrl: checkout.webhookUrl, metadata: checkout.metadata },
      details: { attempts },
    });
    await release(tx, id, held, "delete");
  };

  for (const [index, provider] of plan.providers.entries()) {
    if (!cardTaking(provider)) continue;
    const isLast = index === plan.providers.length - 1;
    let outcome: CascadeOutcome;
    let demo: boolean;
    try {
      const resolved = await ctx.providers.payment(provider, checkout.brandId, livemode);
      // A checkout of the public token generator never reaches a provider that moves real money (CONTRACT §35).
      if (checkout.demoOnly && !resolved.adapter.demo) throw providerNotAllowed();
      demo = resolved.adapter.demo;
      const call = { ...resolved.call, log: ctx.log, idempotencyKey: cascadeKey(held.providerKey, provider) };
      faultPoint(ctx.config, "charge.before-provider");
      const ask = () => chargeAt(provider, resolved.within(ctx.db) as never, order, request.card, call);
      outcome = honoursIdempotencyKey(provider, demo) ? await askTwice(ctx, provider, ask) : await ask();
      faultPoint(ctx.config, "charge.after-provider");
    } catch (error) {
      if (error instanceof ProviderError) {
        const failure = normaliseFailure(provider, error);
        attempts.push({ provider, result: "failed", declineCode: failure.code });
        if (error.notCharged && !isLast) {
          await recordAttempt(attemptRow(provider, index, "failed", failure, null), "failed", keepPlan);
          continue;
        }
        // Charged or not, nobody knows (a timeout twice): the claim stays for a same-key retry (502).
        await recordAttempt(attemptRow(provider, index, "failed", failure, null), "failed", async (tx) => {
          if (error.notCharged && lastDecline) await endDeclined(tx);
          else await release(tx, id, held, error.notCharged ? "delete" : "abandon");
        });
        if (error.notCharged && lastDecline) throw paymentFailed(lastDecline.reason, lastDecline.decline);
        throw error;
      }
      // Refused before charging (not configured, invalid for this provider): certain; declines so far still count.
      // Anything else (a bug, a lost connection) may have charged: the claim stays for a same-key retry.
      if (!(error instanceof AppError) || error.code === "PROVIDER_ERROR") await release(ctx.db, id, held, "abandon");
      else await withTransaction(ctx.db, async (tx) => (lastDecline ? endDeclined(tx) : release(tx, id, held, "delete")));
      throw error;
    }

    if (outcome.status === "succeeded") {
      attempts.push({ provider, result: "approved", declineCode: null });
      const reply: PayReply = {
        status: "succeeded",
        provider,
        transactionId: outcome.transactionId,
        providerOrderId: outcome.providerOrderId ?? outcome.transactionId,
        orderId: request.orderId,
        demo,
        attempts,
      };
      const row = attemptRow(provider, index, "approved", null, outcome.transactionId);
      const paidAt = new Date(ctx.clock.now());
      // One statement (claim paid, attempt, checkout moved, approval counters): atomic without a transaction.
      await finishPaid(
        ctx.db,
        { ...id, providerKey: held.providerKey },
        reply as unknown as Record<string, unknown>,
        paidAt,
        row,
        { id: checkout.checkoutId, provider, providerOrderId: reply.providerOrderId },
        approvalStatsJson(statsOf(row, "approved")),
      );
      await ctx.orchestration.record({ brandId: checkout.brandId, livemode, provider, cardBrand: facts.brand, currency: checkout.currency, result: "approved" });
      faultPoint(ctx.config, "charge.after-commit");
      return reply;
    }

    if (outcome.status === "requires_action" && outcome.nextActionUrl) {
      // 3-D Secure is never cascaded: the buyer authenticates at this provider; nothing is charged yet.
      attempts.push({ provider, result: "requires_action", declineCode: null });
      const row = attemptRow(provider, index, "requires_action", null, outcome.transactionId);
      await withTransaction(ctx.db, async (tx) => {
        await insertAttempt(tx, row);
        await moveCheckout(tx, checkout.checkoutId, provider, outcome.providerOrderId, row.createdAt);
        await release(tx, id, held, "delete");
      });
      return {
        status: "requires_action",
        provider,
        transactionId: outcome.transactionId,
        providerOrderId: outcome.providerOrderId,
        orderId: request.orderId,
        demo,
        nextAction: { url: outcome.nextActionUrl },
        attempts,
      };
    }

    const reason = outcome.status === "declined" ? outcome.reason : "authentication_required";
    const decline = normaliseDecline(provider, { reason, providerCode: outcome.status === "declined" ? outcome.providerCode : undefined });
    attempts.push({ provider, result: "declined", declineCode: decline.code });
    lastDecline = { provider, reason, decline };
    const row = attemptRow(provider, index, "declined", decline, null);
    if (decline.class === "soft" && !isLast) {
      softDeclined = true;
      await recordAttempt(row, "declined", keepPlan);
      faultPoint(ctx.config, "cascade.between-providers");
      continue;
    }
    await recordAttempt(row, "declined", endDeclined);
    throw paymentFailed(reason, decline);
  }
  // Only providers that take no card were planned (a stored plan from an older configuration).
  await withTransaction(ctx.db, async (tx) => (lastDecline ? endDeclined(tx) : release(tx, id, held, "delete")));
  if (lastDecline) throw paymentFailed(lastDecline.reason, lastDecline.decline);
  throw providerNotAllowed();
}

/**
 * One provider call, asked once more with the same idempotency key after a failure that may have
 * charged (a timeout, a 5xx): only a clear answer moves the cascade on. A failure that certainly
 * charged nothing is not repeated (the cascade moves on).
 */
async function askTwice<T>(ctx: Ctx, provider: string, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.notCharged) throw error;
    ctx.log.warn({ provider, retryable: error.retryable, err: error.message }, "payment provider failed; asking once more with the same idempotency key");
    return ask();
  }
}
