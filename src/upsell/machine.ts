/**
 * The upsell session's states and transitions (SPEC "States and transitions > Upsell session") as
 * data plus pure functions; the verbs load a session, ask these what happens, and persist it.
 */
export type SessionStatus = "active" | "completed" | "expired";
export type SessionEvent = "accept" | "decline" | "expire";

/** The transition table: which events each state takes, and the states they can lead to (answerOffer checks both). */
export const SESSION_TRANSITIONS: Record<SessionStatus, Partial<Record<SessionEvent, readonly SessionStatus[]>>> = {
  active: { accept: ["active", "completed"], decline: ["active", "completed"], expire: ["expired"] },
  completed: {},
  expired: {},
};

/** One step of the flow: an offer, or the downsell shown only when `downsellOf` was declined (CONTRACT §9). */
export interface FlowStep {
  offerId: string;
  downsellOf?: string;
}

export interface Answers {
  accepted: readonly string[];
  declined: readonly string[];
}

/** The offer the customer should see now, or null when the flow is finished. */
export function currentOffer(flow: readonly FlowStep[], answers: Answers): string | null {
  const answered = new Set([...answers.accepted, ...answers.declined]);
  const declined = new Set(answers.declined);
  for (const step of flow) {
    if (answered.has(step.offerId)) continue;
    if (step.downsellOf && !declined.has(step.downsellOf)) continue; // its parent was accepted: skipped
    return step.offerId;
  }
  return null;
}

export type TransitionResult =
  | { ok: true; status: SessionStatus; answers: Answers; nextOfferId: string | null }
  | { ok: false; reason: "session_expired" | "session_closed" | "offer_not_found" | "already_answered" };

/**
 * Applies accept or decline of `offerId` at time `now`. An expired session refuses every event;
 * answering the last open offer completes the session.
 */
export function answerOffer(
  session: { status: SessionStatus; expiresAt: number; flow: readonly FlowStep[]; answers: Answers },
  event: "accept" | "decline",
  offerId: string,
  now: number,
): TransitionResult {
  if (session.status === "expired" || now >= session.expiresAt) return { ok: false, reason: "session_expired" };
  const allowed = SESSION_TRANSITIONS[session.status][event];
  if (!allowed) return { ok: false, reason: "session_closed" };
  const step = session.flow.find((s) => s.offerId === offerId);
  if (!step) return { ok: false, reason: "offer_not_found" };
  if (session.answers.accepted.includes(offerId) || session.answers.declined.includes(offerId)) return { ok: false, reason: "already_answered" };
  // A downsell exists for the customer only once its parent offer was declined.
  if (step.downsellOf && !session.answers.declined.includes(step.downsellOf)) return { ok: false, reason: "offer_not_found" };
  const answers: Answers =
    event === "accept"
      ? { accepted: [...session.answers.accepted, offerId], declined: session.answers.declined }
      : { accepted: session.answers.accepted, declined: [...session.answers.declined, offerId] };
  const nextOfferId = currentOffer(session.flow, answers);
  const status: SessionStatus = nextOfferId === null ? "completed" : "active";
  // The table is the rule book: a move it does not list is refused, never taken.
  if (!allowed.includes(status)) return { ok: false, reason: "session_closed" };
  return { ok: true, status, answers, nextOfferId };
}

/** The status to show: an active session past its lifetime reads as expired. */
export function effectiveStatus(status: SessionStatus, expiresAt: number, now: number): SessionStatus {
  return status === "active" && now >= expiresAt ? "expired" : status;
}
