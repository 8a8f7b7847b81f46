import { Type, type Static } from "typebox";

export const ListMapping = Type.Object({ listId: Type.String(), originalName: Type.String(), displayName: Type.String() });

export const ListsReply = Type.Object({
  success: Type.Literal(true),
  lists: Type.Array(ListMapping),
  mappings: Type.Record(Type.String(), Type.String(), { description: "listId to the brand's display name (custom names only)" }),
  count: Type.Number(),
});
export type ListsReply = Static<typeof ListsReply>;

// `mappings` is checked by the verb so every wrong shape answers SPEC's `Invalid mappings`.
export const UpdateMappingsBody = Type.Object({
  mappings: Type.Optional(Type.Unknown({ description: "Object of listId to display name; an empty name removes the custom name" })),
});
export type UpdateMappingsBody = Static<typeof UpdateMappingsBody>;

export const UpdateMappingsReply = Type.Object({ success: Type.Literal(true), updated: Type.Number({ description: "rows added, renamed or removed" }) });
export type UpdateMappingsReply = Static<typeof UpdateMappingsReply>;
