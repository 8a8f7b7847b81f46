import { Type } from "typebox";

// Test and live never mix (CONTRACT §39, issue 33): every read that shows orders or money shows one
// mode. The back office names it (`livemode=true|false`); a merchant API key is of one mode. Which
// mode a brand shows by default: src/payments/mode.ts.

/** The `livemode` query parameter of every list and stat of the back office. */
export const LivemodeParam = Type.Optional(
  Type.Boolean({ description: "true: live (real money) only; false: test only. Default: the brand's mode, live when it has a payment provider configured with real credentials, else test" }),
);

/** The `livemode` member of an answer: which mode it shows. */
export const LivemodeMember = Type.Boolean({ description: "the mode shown: true live (real money), false test" });
