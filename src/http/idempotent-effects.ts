import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { findEffect, insertEffect, type IdempotencyEffectRow } from "./idempotency-store.js";

/**
 * CONTRACT §40: an Idempotency-Key names one effect, for good. The HTTP reservation
 * (idempotency.ts) keeps a first answer for 24 hours and gives a dead request's key to the next
 * request after a minute; past that point only the effect row stops a second refund, checkout or
 * session. Each creating verb binds the request's key to what it makes, in the transaction that makes
 * it, and a request finding its key bound answers that resource's state instead of making another.
 * The routes and what a retry answers: docs/decisions.md "Idempotency keys".
 */

/** What a verb makes once per key. Refunds of both routes share `refund`: one key, one refund of the brand. */
export type EffectKind =
  | "refund"
  | "checkout"
  | "upsell_session"
  | "payment_link"
  | "sales_link"
  | "api_key"
  | "signing_key"
  | "webhook_endpoint"
  | "event_redelivery"
  | "test_event"
  | "user"
  | "organization"
  | "brand"
  | "domain"
  | "salesperson";

/** Whose key space the effect is in: always the authenticated caller's brand, organization or user (or the resource's own brand), never a body member. */
export interface EffectOf {
  owner: `brand:${string}` | `org:${string}` | `user:${string}`;
  kind: EffectKind;
}

export const ofBrand = (brandId: string, kind: EffectKind): EffectOf => ({ owner: `brand:${brandId}`, kind });
export const ofOrganization = (organizationId: string, kind: EffectKind): EffectOf => ({ owner: `org:${organizationId}`, kind });
export const ofUser = (userId: string, kind: EffectKind): EffectOf => ({ owner: `user:${userId}`, kind });

/** The request's key as the verbs see it (set on Ctx by ctxOf once the HTTP layer reserved it). */
type RequestKey = NonNullable<Ctx["idempotencyKey"]>;

const keyReused = () => new AppError("IDEMPOTENCY_KEY_REUSED", "Idempotency key reused with different parameters");

/**
 * A key whose effect cannot be answered again: its secret was shown once (API keys, signing keys,
 * webhook endpoints), or it was deleted since. 409 naming what the key made, so the caller can find
 * (and revoke) it.
 */
export const keyAlreadyUsed = (what: string, resourceId: string, why: string) =>
  new AppError("IDEMPOTENCY_KEY_USED", `This Idempotency-Key already made ${what} ${resourceId}: ${why}`, undefined, { resourceId });

/** Another request with the same key bound it first, while this one was making its own: thrown to roll this one's transaction back. */
class BoundMeanwhile extends Error {
  constructor(readonly resourceId: string) {
    super("Idempotency-Key bound by another request meanwhile");
  }
}

/** The resource a bound key made, once the request is known to be the same (else 422). */
function sameRequest(first: IdempotencyEffectRow, held: RequestKey): string {
  if (first.requestHash !== held.requestHash) throw keyReused();
  return first.resourceId;
}

/** The resource this request's key already made for `of`, or null (also without a key). 422 when the key was used with other parameters. */
export async function boundResource(ctx: Pick<Ctx, "db" | "idempotencyKey">, of: EffectOf): Promise<string | null> {
  const held = ctx.idempotencyKey;
  if (!held) return null;
  const first = await findEffect(ctx.db, { ...of, key: held.key });
  return first ? sameRequest(first, held) : null;
}

/**
 * Binds the request's key to `resourceId` inside `tx`, the transaction that makes the resource. When
 * another request bound the key first (a concurrent repeat, or one on another instance after the
 * takeover), throws, which rolls `tx` back; oncePerKey answers the first request's resource instead.
 * Without a key, nothing.
 */
export async function bindResource(tx: Db, ctx: Pick<Ctx, "clock" | "idempotencyKey">, of: EffectOf, resourceId: string): Promise<void> {
  const held = ctx.idempotencyKey;
  if (!held) return;
  if (await insertEffect(tx, { ...of, key: held.key, requestHash: held.requestHash, resourceId, createdAt: new Date(ctx.clock.now()) })) return;
  const first = await findEffect(tx, { ...of, key: held.key });
  if (!first) throw new Error("Idempotency-Key bound and gone: the effect rows are never deleted");
  throw new BoundMeanwhile(sameRequest(first, held));
}

/**
 * Makes the resource once per key: a key already bound answers `answer(resourceId)` (the state of what
 * the first request made) and never calls `make`; otherwise `make` runs and must call bindResource
 * in its creating transaction. Without a key, just `make`.
 */
export async function oncePerKey<T>(ctx: Pick<Ctx, "db" | "idempotencyKey">, of: EffectOf, steps: { answer: (resourceId: string) => Promise<T>; make: () => Promise<T> }): Promise<T> {
  const bound = await boundResource(ctx, of);
  if (bound !== null) return steps.answer(bound);
  try {
    return await steps.make();
  } catch (error) {
    if (error instanceof BoundMeanwhile) return steps.answer(error.resourceId);
    throw error;
  }
}

/**
 * `write(tx)` with the key bound to `resourceId` in the same transaction; without a key, `write(ctx.db)`
 * alone, so a hot path that is one statement stays one round trip.
 */
export async function writeBound<T>(ctx: Pick<Ctx, "db" | "clock" | "idempotencyKey">, of: EffectOf, resourceId: string, write: (db: Db) => Promise<T>): Promise<T> {
  if (!ctx.idempotencyKey) return write(ctx.db);
  return withTransaction(ctx.db, async (tx) => {
    await bindResource(tx, ctx, of, resourceId);
    return write(tx);
  });
}
