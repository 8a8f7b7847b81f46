import { Type, type Static } from "typebox";

// Issue 17: disputes of an order's charges and the merchant's answers (docs/orders.md "Disputes").

export const DISPUTE_STATUSES = ["needs_response", "under_review", "won", "lost", "accepted", "charge_refunded"] as const;
/** Stripe's `evidence[uncategorized_text]` takes up to 20 000 characters; we keep no more. */
export const EVIDENCE_MAX_LENGTH = 20_000;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const DisputeView = Type.Object({
  id: Type.String({ description: "our dispute id (dsp_…)" }),
  orderId: Type.String({ description: "the disputed charge's order id" }),
  chargeId: Type.String({ description: "our id of the disputed charge (ord_…)" }),
  provider: Type.String(),
  providerDisputeId: Type.String(),
  amount: Type.Integer({ description: "disputed, minor units" }),
  currency: Type.String(),
  reason: Nullable(Type.String()),
  status: Type.Enum([...DISPUTE_STATUSES], { description: "open: needs_response, under_review; closed: won, charge_refunded (the money stays), lost, accepted (it went back)" }),
  dueBy: Nullable(Type.Integer({ description: "evidence due, Unix ms, when the provider says" })),
  evidence: Nullable(Type.String({ description: "the evidence text last submitted" })),
  evidenceSubmittedAt: Nullable(Type.Integer({ description: "Unix ms" })),
  evidenceSent: Nullable(Type.Boolean({ description: "whether the provider's API took the evidence (false: kept with us only)" })),
  closedAt: Nullable(Type.Integer({ description: "Unix ms" })),
  createdAt: Type.Integer({ description: "Unix ms" }),
});
export type DisputeView = Static<typeof DisputeView>;

// Not built from orders/schemas.ts's OrderIdParams: that module imports DisputeView from here.
export const DisputeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }), disputeId: Type.String({ minLength: 1, maxLength: 255 }) });
export type DisputeParams = Static<typeof DisputeParams>;

export const EvidenceBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: EVIDENCE_MAX_LENGTH, description: "the merchant's evidence: what was sold, delivery, communication with the buyer" }),
});
export type EvidenceBody = Static<typeof EvidenceBody>;

export const SimulateDisputeBody = Type.Object(
  {
    charge: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "an upsell charge of the order (its order id or our id); default the checkout payment" })),
    providerDisputeId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "the simulated dispute's provider id: given again with another status, it moves that dispute on" })),
    status: Type.Optional(Type.Enum([...DISPUTE_STATUSES], { description: "default needs_response (a new dispute)" })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "default fraudulent" })),
    amount: Type.Optional(Type.Integer({ minimum: 1, description: "disputed, minor units; default the whole charge" })),
  },
  { additionalProperties: false },
);
export type SimulateDisputeBody = Static<typeof SimulateDisputeBody>;

export const DisputeReply = Type.Object({ success: Type.Boolean(), dispute: DisputeView });
export type DisputeReply = Static<typeof DisputeReply>;
