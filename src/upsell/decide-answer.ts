// An answer (accept or decline) to an offer: decided on the session as stored by machine.ts's
// answerOffer, then saved in one statement written only over the session as it was decided on (a
// funnel's counters and commission join it in one transaction).
import type { Db } from "../db/client.js";
import type { StoredOffer } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import type { EventCommonFields, NewEvent } from "../outbox/events.js";
import { offerAlreadyAnswered, offerNotFound, sessionCompleted, sessionExpired } from "./errors.js";
import { recordFunnelAnswer } from "./funnel/counters.js";
import { answerOffer, type Answers } from "./machine.js";
import { answersOf, checkAnswerable, flowSteps, statusOf } from "./session.js";
import { inProgress } from "../payments/charge-once.js";
import { readSessionForAnswer, saveAnswer, type Answer, type SaveOutcome, type SessionForAnswer, type UpsellSessionRow } from "./store.js";

export type Decided = { session: UpsellSessionRow; offer: StoredOffer; answers: Answers; nextOfferId: string | null; completed: boolean; original: SessionForAnswer["original"] };

/** The answer's decision on the session as it is now (decideOn). */
export async function decide(db: Db, sessionId: string, offerId: string, event: "accept" | "decline", now: number): Promise<{ replay: Record<string, unknown> } | Decided> {
  return decideOn(await readSessionForAnswer(db, sessionId, offerId), offerId, event, now);
}

/**
 * Saves the answer `build` makes of a decision, in one statement written only over the session as it
 * was decided on (saveWithFunnel). When another offer of the session was answered meanwhile, the answer is
 * decided again on the session as it is now (a repeat of it is replayed) and saved over that. Each
 * conflict is another offer answered, so the session's offer count bounds the tries. A row of the
 * offer that is not this answer's to replace is a charge in progress: 409 REQUEST_IN_PROGRESS.
 */
export async function saveDecided<R>(db: Db, decided: Decided, event: "accept" | "decline", now: number, build: (decided: Decided) => { answer: Answer; result: R }): Promise<R> {
  const { session, offer } = decided;
  for (let tries = 0; tries <= session.totalOffers; tries++) {
    const { answer, result } = build(decided);
    const outcome = await saveWithFunnel(db, answer);
    if (outcome === "saved") return result;
    if (outcome === "not_ours") break;
    const again = await decide(db, session.id, offer.id, event, now);
    if ("replay" in again) return again.replay as R;
    decided = again;
  }
  throw inProgress();
}

/**
 * The answer's one statement (saveAnswer), with no transaction around it. A funnel's session also
 * counts per step and variant and may earn an upsell commission (docs/funnels.md): those writes join
 * the statement in a transaction, only when it saved the answer.
 */
async function saveWithFunnel(db: Db, answer: Answer): Promise<SaveOutcome> {
  if (!answer.session.flow[0]?.funnel) return saveAnswer(db, answer);
  return withTransaction(db, async (tx) => {
    const outcome = await saveAnswer(tx, answer);
    if (outcome === "saved") await recordFunnelAnswer(tx, answer.session, answer.changes.acceptedOffers, answer.stats, answer.at, answer.order?.row as { id: string; orderId: string; amountCents: number; currency: string } | undefined);
    return outcome;
  });
}

/**
 * The answer's decision on the session as read: replay a repeat of the same answer (CONTRACT §7),
 * refuse the other answer to an answered offer, a completed session, or an offer not (yet) offered.
 * A `pending` or `refused` row is no answer.
 */
export function decideOn(found: SessionForAnswer | null, offerId: string, event: "accept" | "decline", now: number): { replay: Record<string, unknown> } | Decided {
  const { session, offer } = checkAnswerable(found?.session ?? null, offerId, now);
  const prior = found!.prior;
  if (prior?.decision === "accepted" || prior?.decision === "declined") {
    if (prior.decision === (event === "accept" ? "accepted" : "declined") && prior.result) return { replay: prior.result };
    throw offerAlreadyAnswered();
  }
  if (session.status === "completed") throw sessionCompleted();
  const outcome = answerOffer({ status: statusOf(session, now), expiresAt: session.expiresAt.getTime(), flow: flowSteps(session.flow), answers: answersOf(session) }, event, offerId, now);
  if (!outcome.ok) {
    if (outcome.reason === "session_expired") throw sessionExpired();
    if (outcome.reason === "offer_not_found") throw offerNotFound();
    if (outcome.reason === "session_closed") throw sessionCompleted();
    throw offerAlreadyAnswered();
  }
  return { session, offer, answers: outcome.answers, nextOfferId: outcome.nextOfferId, completed: outcome.status === "completed", original: found!.original };
}

export function eventBase(session: UpsellSessionRow): Pick<NewEvent, "brandId" | "checkoutId" | "webhookUrl"> {
  return { brandId: session.brandId, checkoutId: session.checkoutId, webhookUrl: session.webhookUrl };
}

/** An upsell event's metadata (issue 33): the session's own, and its checkout's (the original order's). */
export function sessionMetadataFields(decided: Pick<Decided, "session" | "original">): Pick<EventCommonFields, "metadata" | "checkoutMetadata"> {
  return { metadata: decided.session.metadata ?? {}, checkoutMetadata: decided.original.metadata ?? {} };
}

/**
 * What an answer writes besides its own rows: the session moved on, the answered offer's counters,
 * and the next offer counted as shown.
 */
export function answerChanges(decided: Decided, totalUpsellCents: number, stats: Omit<Answer["stats"][number], "offerId">): Pick<Answer, "session" | "changes" | "stats"> {
  const { session, offer, answers, nextOfferId, completed } = decided;
  return {
    session,
    changes: {
      acceptedOffers: [...answers.accepted],
      declinedOffers: [...answers.declined],
      currentStep: answers.accepted.length + answers.declined.length,
      status: completed ? "completed" : "active",
      totalUpsellCents,
    },
    stats: [{ offerId: offer.id, ...stats }, ...(nextOfferId ? [{ offerId: nextOfferId, shown: 1 }] : [])],
  };
}
