// The card helpers moved to web/src/shared/card.ts (issue 36: the upsell page's card form uses them too).
export * from "../shared/card";
