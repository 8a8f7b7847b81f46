// The upsell session's transition table (SPEC "States and transitions"), walked row by row.
import { describe, expect, it } from "vitest";
import { answerOffer, currentOffer, effectiveStatus, SESSION_TRANSITIONS, type FlowStep } from "./machine.js";

const flow: FlowStep[] = [{ offerId: "a" }, { offerId: "a-down", downsellOf: "a" }, { offerId: "b" }];
const fresh = { status: "active" as const, expiresAt: 1_000, flow, answers: { accepted: [], declined: [] } };

describe("upsell session machine", () => {
  it("has no way out of completed or expired", () => {
    expect(SESSION_TRANSITIONS.completed).toEqual({});
    expect(SESSION_TRANSITIONS.expired).toEqual({});
  });

  it("takes only the moves the table lists: without active -> completed, answering the last offer is refused", () => {
    const listed = SESSION_TRANSITIONS.active.accept;
    SESSION_TRANSITIONS.active.accept = ["active"];
    try {
      expect(answerOffer({ ...fresh, flow: [{ offerId: "a" }] }, "accept", "a", 0)).toEqual({ ok: false, reason: "session_closed" });
    } finally {
      SESSION_TRANSITIONS.active.accept = listed;
    }
  });

  it("active + accept, more offers left: stays active and names the next offer (the downsell is skipped)", () => {
    const result = answerOffer(fresh, "accept", "a", 0);
    expect(result).toEqual({ ok: true, status: "active", answers: { accepted: ["a"], declined: [] }, nextOfferId: "b" });
  });

  it("active + decline: the downsell comes next", () => {
    const result = answerOffer(fresh, "decline", "a", 0);
    expect(result).toMatchObject({ ok: true, status: "active", nextOfferId: "a-down" });
  });

  it("active + answering the last offer: completed", () => {
    const afterA = { ...fresh, answers: { accepted: ["a"], declined: [] } };
    expect(answerOffer(afterA, "decline", "b", 0)).toMatchObject({ ok: true, status: "completed", nextOfferId: null });
  });

  it("a downsell cannot be answered before its offer was declined", () => {
    expect(answerOffer(fresh, "accept", "a-down", 0)).toEqual({ ok: false, reason: "offer_not_found" });
  });

  it("30 minutes elapsed: every operation fails as expired", () => {
    expect(answerOffer(fresh, "accept", "a", 1_000)).toEqual({ ok: false, reason: "session_expired" });
    expect(effectiveStatus("active", 1_000, 1_000)).toBe("expired");
    expect(effectiveStatus("active", 1_000, 999)).toBe("active");
    expect(effectiveStatus("completed", 1_000, 5_000)).toBe("completed");
  });

  it("unknown offers and repeated answers are refused", () => {
    expect(answerOffer(fresh, "accept", "zzz", 0)).toEqual({ ok: false, reason: "offer_not_found" });
    const afterA = { ...fresh, answers: { accepted: ["a"], declined: [] } };
    expect(answerOffer(afterA, "accept", "a", 0)).toEqual({ ok: false, reason: "already_answered" });
  });

  it("a completed session takes no more answers", () => {
    const done = { ...fresh, status: "completed" as const };
    expect(answerOffer(done, "accept", "b", 0)).toEqual({ ok: false, reason: "session_closed" });
  });

  it("currentOffer walks the flow in order", () => {
    expect(currentOffer(flow, { accepted: [], declined: [] })).toBe("a");
    expect(currentOffer(flow, { accepted: [], declined: ["a"] })).toBe("a-down");
    expect(currentOffer(flow, { accepted: ["a-down"], declined: ["a"] })).toBe("b");
    expect(currentOffer(flow, { accepted: ["a", "b"], declined: [] })).toBeNull();
  });
});
