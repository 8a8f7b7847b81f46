import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { keyedHash } from "../lib/crypto.js";
import { AppError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Metadata } from "../lib/metadata.js";
import { enqueueEvents, type NewEvent } from "../outbox/events.js";
import type { PaymentProviderType } from "../providers/types.js";
import { normaliseDecline, type NormalisedDecline } from "./decline-codes.js";
import { countDeclines, insertDecline, orderContextOf, type DeclineCounts } from "./store.js";

export type { DeclineCounts } from "./store.js";

/**
 * CONTRACT §25's 402 (`details`: the reason, as SPEC has it) with, after SPEC's members, the
 * normalised decline (issue 34): `declineCode`, `declineClass` and the provider's own `providerCode`.
 */
export const paymentFailed = (reason: string, decline?: NormalisedDecline) =>
  new AppError("PAYMENT_FAILED", `Payment failed: ${reason}`, reason, decline ? { declineCode: decline.code, declineClass: decline.class, providerCode: decline.providerCode } : undefined);

/** The start of the window declines are counted in. */
export const declineWindowStart = (ctx: Pick<Ctx, "clock" | "config">) => new Date(ctx.clock.now() - ctx.config.declineWindowSeconds * 1000);

/**
 * The card's fingerprint on its decline row (issue 36 item 7): an HMAC of the normalised number (digits
 * only) under a key derived from ENCRYPTION_KEY for this one use, so the same card declined twice from
 * an address counts once toward the address limit. Not reversible without the key; never the number,
 * never logged. A key rotation changes the fingerprints: at most one window counts a card twice.
 */
export function cardFingerprint(ctx: Pick<Ctx, "config">, cardNumber: string): string {
  return keyedHash(cardNumber.replace(/\D/g, ""), keyedHashKey(ctx.config.encryptionKey));
}

const fingerprintKeys = new WeakMap<Buffer, Buffer>();
function keyedHashKey(secret: Buffer): Buffer {
  let key = fingerprintKeys.get(secret);
  if (!key) {
    key = Buffer.from(keyedHash("payment-declines:card-fingerprint:v1", secret), "hex");
    fingerprintKeys.set(secret, key);
  }
  return key;
}

/**
 * CONTRACT §21, §33 (issue 36 item 7): after `declineLimit` declines within `declineWindowSeconds` for
 * this orderId, or `declineAddressCardLimit` distinct declined cards (a decline without a card counts as
 * one of its own) within that window from this client address, payment attempts answer 429 before any
 * provider is called. The address counts cards, not declines: one buyer retrying a declined card on a
 * shared address (an office, a carrier's NAT) does not use up the address for the others.
 */
export async function assertUnderDeclineLimit(ctx: Ctx, orderId: string): Promise<void> {
  assertCountsUnderDeclineLimit(ctx, await countDeclines(ctx.db, orderId, ctx.clientAddress ?? null, declineWindowStart(ctx)));
}

/** The limit check of assertUnderDeclineLimit, for counts a caller read along with its own row. */
export function assertCountsUnderDeclineLimit(ctx: Pick<Ctx, "config">, counts: DeclineCounts): void {
  if (counts.byOrder >= ctx.config.declineLimit || counts.byAddress >= ctx.config.declineAddressCardLimit) {
    // retryAfterSeconds (not in SPEC): the window's length, the longest a buyer waits; the checkout page says it.
    throw new AppError("TOO_MANY_DECLINES", "Too many declined payments, try again later", undefined, { retryAfterSeconds: ctx.config.declineWindowSeconds });
  }
}

export interface Decline {
  provider: PaymentProviderType;
  /** Declined by the provider's real adapter (false: a demo adapter's test card). */
  livemode: boolean;
  orderId: string;
  reason: string;
  /** The provider's own code of the decline, when it gave one (ChargeOutcome's providerCode). */
  providerCode?: string;
  /**
   * The declined card, when the request carried one (provider endpoints, checkout pay, upsell
   * pay-with-card): only its fingerprint is stored (cardFingerprint). None for a saved method's charge.
   */
  card?: { cardNumber: string };
  amountCents: number;
  currency: string;
  /**
   * Whose decline it is when the caller knows (an upsell session); else found from the orderId's
   * checkout. `metadata`: the event's own (the checkout's, or an upsell session's); `checkoutMetadata`
   * the checkout's when it is another (issue 33).
   */
  owner?: Pick<NewEvent, "brandId" | "checkoutId" | "webhookUrl"> & { metadata: Metadata | null; checkoutMetadata?: Metadata | null };
  /** More fields for `payment.failed` (the upsell's session and offer), placed after `orderId`. */
  details?: Record<string, unknown>;
}

/**
 * The one place a decline is recorded: counts it (§21) and emits `payment.failed` (§25) in the
 * caller's transaction, both with the normalised code and class and the provider's own code (issue
 * 34), which it answers for the 402 (paymentFailed). Never card data.
 */
export async function recordDecline(ctx: Ctx, tx: Db, decline: Decline): Promise<NormalisedDecline> {
  const now = ctx.clock.now();
  const normalised = normaliseDecline(decline.provider, { reason: decline.reason, providerCode: decline.providerCode });
  await insertDecline(tx, {
    id: newId("dcl"),
    orderId: decline.orderId,
    clientAddress: ctx.clientAddress ?? null,
    reason: decline.reason,
    declineCode: normalised.code,
    declineClass: normalised.class,
    providerCode: normalised.providerCode,
    cardFingerprint: decline.card ? cardFingerprint(ctx, decline.card.cardNumber) : null,
    createdAt: new Date(now),
  });
  const owner = decline.owner ?? (await orderContextOf(tx, { orderId: decline.orderId }));
  await enqueueEvents(tx, now, [
    {
      brandId: owner.brandId,
      type: "payment.failed",
      checkoutId: owner.checkoutId,
      webhookUrl: owner.webhookUrl,
      data: {
        orderId: decline.orderId,
        ...decline.details,
        provider: decline.provider,
        reason: decline.reason,
        declineCode: normalised.code,
        declineClass: normalised.class,
        providerCode: normalised.providerCode,
        amount: decline.amountCents,
        currency: decline.currency,
        livemode: decline.livemode,
        metadata: owner.metadata ?? {},
        checkoutMetadata: ("checkoutMetadata" in owner ? owner.checkoutMetadata : owner.metadata) ?? {},
      },
    },
  ]);
  return normalised;
}
