import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { auditLogs } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";
import { isAuditAction, type AuditAction } from "./actions.js";

export interface AuditEntry {
  action: AuditAction;
  resourceType: string;
  resourceId?: string | null;
  success: boolean;
  actorType?: "user" | "system" | "api";
  /** Defaults to ctx.actor.id. */
  actorId?: string | null;
  organizationId?: string | null;
  brandId?: string | null;
  /** Never secrets, card data, passwords or tokens. */
  details?: Record<string, unknown>;
}

/**
 * Writes one audit record with the caller's transaction (`tx`), so a failed audit write rolls the
 * change back (fail closed). Actor, client address and user agent come from the request's ctx.
 */
export async function recordAudit(tx: Db, ctx: Pick<Ctx, "clock" | "actor" | "clientAddress" | "userAgent">, entry: AuditEntry): Promise<void> {
  if (!isAuditAction(entry.action)) throw new Error(`unknown audit action ${entry.action}`);
  const actorType = entry.actorType ?? (ctx.actor.type === "api" ? "api" : ctx.actor.type === "system" ? "system" : "user");
  await tx.insert(auditLogs).values({
    id: newId("aud"),
    organizationId: entry.organizationId !== undefined ? entry.organizationId : (ctx.actor.organizationId ?? null),
    brandId: entry.brandId !== undefined ? entry.brandId : (ctx.actor.brandId ?? null),
    actorType,
    actorId: entry.actorId !== undefined ? entry.actorId : (ctx.actor.id ?? null),
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId ?? null,
    success: entry.success,
    ipAddress: ctx.clientAddress ?? null,
    userAgent: ctx.userAgent?.slice(0, 512) ?? null,
    details: entry.details ?? null,
    createdAt: new Date(ctx.clock.now()),
  });
}
