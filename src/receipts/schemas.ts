import { Type, type Static } from "typebox";

export const ReceiptSettings = Type.Object({
  enabled: Type.Boolean({ description: "false: no receipt mails for this brand (merchants who send their own)" }),
  supportEmail: Type.Union([Type.String(), Type.Null()], { description: "shown in receipts and used as their Reply-To" }),
});
export type ReceiptSettings = Static<typeof ReceiptSettings>;

export const UpdateReceiptSettingsBody = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  supportEmail: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: "an email address; null or an empty string removes it; omitted keeps it" })),
});
export type UpdateReceiptSettingsBody = Static<typeof UpdateReceiptSettingsBody>;
