import { Type, type Static } from "typebox";

export const ListMapping = Type.Object({ listId: Type.String(), originalName: Type.String(), displayName: Type.String() });

export const ListsReply = Type.Object({
  success: Type.Literal(true),
  lists: Type.Array(ListMapping),
  mappings: Type.Record(Type.String(), Type.String(), { description: "listId to the brand's display name (custom names only)" }),
  count: Type.Number(),
  configured: Type.Boolean({ description: "false when the brand has not stored the integration's keys or disabled it (then lists is [])" }),
  missing: Type.Optional(Type.Array(Type.String(), { description: "the settings keys still to store, when configured is false" })),
  disabled: Type.Optional(Type.Boolean({ description: "true when the integration is switched off in the settings" })),
});
export type ListsReply = Static<typeof ListsReply>;

// `mappings` is checked by the verb so every wrong shape answers SPEC's `Invalid mappings`.
export const UpdateMappingsBody = Type.Object({
  mappings: Type.Optional(Type.Unknown({ description: "Object of listId to display name; an empty name removes the custom name" })),
});
export type UpdateMappingsBody = Static<typeof UpdateMappingsBody>;

export const UpdateMappingsReply = Type.Object({ success: Type.Literal(true), updated: Type.Number({ description: "rows added, renamed or removed" }) });
export type UpdateMappingsReply = Static<typeof UpdateMappingsReply>;
