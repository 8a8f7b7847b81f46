import { Type, type Static } from "typebox";
import { CRM_PROVIDERS } from "../../providers/types.js";

export const TestCrmBody = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64, description: `One of ${CRM_PROVIDERS.join(", ")}` }) });
export type TestCrmBody = Static<typeof TestCrmBody>;
export const TestCrmReply = Type.Object({ success: Type.Literal(true), provider: Type.String(), demo: Type.Boolean() });
export type TestCrmReply = Static<typeof TestCrmReply>;

export const CrmRetryBody = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 255 }) });
export type CrmRetryBody = Static<typeof CrmRetryBody>;
export const CrmRetryReply = Type.Object({
  success: Type.Literal(true),
  orderId: Type.String(),
  crmProvider: Type.String(),
  crmOrderId: Type.String(),
  crmStatus: Type.Literal("recorded"),
  /** True when the order was recorded already and nothing new was recorded. */
  alreadyRecorded: Type.Boolean(),
});
export type CrmRetryReply = Static<typeof CrmRetryReply>;
