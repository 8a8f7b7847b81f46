import { Type, type Static } from "typebox";
import { UnixMsParam } from "../lib/dates.js";

// SPEC "Administration: audit logs": the query parameters and the answer, member names exact.

export const AUDIT_PAGE_SIZE_DEFAULT = 20;
/** SPEC "Limits": `limit` at most 100. A larger limit is capped, not refused (docs/admin.md). */
export const AUDIT_PAGE_SIZE_MAX = 100;

export const AuditLogQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: AUDIT_PAGE_SIZE_DEFAULT, description: "1..100; larger values are capped at 100" }),
  brandId: Type.Optional(Type.String({ minLength: 1 })),
  organizationId: Type.Optional(Type.String({ minLength: 1, description: "only the session's organization is visible; any other id gives no records" })),
  actorType: Type.Optional(Type.Enum(["user", "system", "api"])),
  action: Type.Optional(Type.String({ minLength: 1 })),
  resourceType: Type.Optional(Type.String({ minLength: 1 })),
  success: Type.Optional(Type.Boolean()),
  startDate: Type.Optional(UnixMsParam("recorded at or after (inclusive)")),
  endDate: Type.Optional(UnixMsParam("recorded at or before (inclusive)")),
  search: Type.Optional(Type.String({ maxLength: 200, description: "full-text search over action, resource type and id, actor type and id" })),
  includeStats: Type.Optional(Type.Boolean()),
});
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditLogView = Type.Object({
  id: Type.String(),
  actorType: Type.String(),
  actorId: Type.Union([Type.String(), Type.Null()]),
  actorName: Type.Union([Type.String(), Type.Null()], { description: "not in SPEC: the acting user's name and email (while a member of the organization), the salesperson's name, or the API key's name; null for the system or a removed actor" }),
  action: Type.String(),
  resourceType: Type.String(),
  resourceId: Type.Union([Type.String(), Type.Null()]),
  resourceName: Type.Union([Type.String(), Type.Null()], { description: "not in SPEC: the resource's name (brand, member user, endpoint, order id, payment link …) when it still exists in the organization; null otherwise" }),
  success: Type.Boolean(),
  createdAt: Type.Number({ description: "Unix ms" }),
  organizationId: Type.Union([Type.String(), Type.Null()]),
  brandId: Type.Union([Type.String(), Type.Null()]),
  ipAddress: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
});
export type AuditLogView = Static<typeof AuditLogView>;

export const AuditStats = Type.Object({
  totalActions: Type.Integer(),
  successRate: Type.Number({ description: "percentage of successful records, 0 to 100, two decimals; 0 when there are none" }),
  actionsByType: Type.Record(Type.String(), Type.Integer()),
});

export const AuditLogListReply = Type.Object({
  logs: Type.Array(AuditLogView),
  pagination: Type.Object({
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer(),
    /** false when more than 1 000 records match: `total` is then the database's estimate. */
    totalExact: Type.Boolean(),
  }),
  stats: Type.Optional(AuditStats),
});
export type AuditLogListReply = Static<typeof AuditLogListReply>;
