import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofOrganization, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { emailAlreadyExists } from "../identity/errors.js";
import { checkPasswordPolicy, hashPassword } from "../identity/password.js";
import { normalizeEmail } from "../identity/register.js";
import { newId } from "../lib/ids.js";
import type { CreateSalespersonBody, ListSalespeopleReply, SalespersonSummary } from "./schemas.js";
import { findSalespersonInOrganization, insertSalesperson, listSalespeopleOf } from "./store.js";

/**
 * `POST /api/admin/salespeople` (CONTRACT §12): an account in the session's organization (and its
 * brand), password under the rules of CONTRACT §23, hashed with argon2id like users' passwords.
 */
export async function createSalesperson({ ctx, input }: { ctx: Ctx; input: CreateSalespersonBody }): Promise<{ success: true; salesperson: SalespersonSummary }> {
  const scope = assertRole(ctx, "admin");
  // CONTRACT §40: an Idempotency-Key names one salesperson of the organization; a repeat answers it.
  const effect = ofOrganization(scope.organizationId, "salesperson");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      const row = await findSalespersonInOrganization(ctx.db, scope.organizationId, id);
      if (!row) throw keyAlreadyUsed("salesperson", id, "that account was deleted since");
      return { success: true as const, salesperson: { id: row.id, name: row.name, email: row.email } };
    },
    make: () => makeSalesperson(ctx, scope, input, effect),
  });
}

async function makeSalesperson(ctx: Ctx, scope: CallerScope, input: CreateSalespersonBody, effect: EffectOf): Promise<{ success: true; salesperson: SalespersonSummary }> {
  checkPasswordPolicy(input.password);
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const id = newId("sp");
  const name = input.name.trim();
  await withTransaction(ctx.db, async (tx) => {
    const inserted = await insertSalesperson(tx, {
      id,
      organizationId: scope.organizationId,
      brandId: scope.brandId,
      name,
      email,
      passwordHash,
      commissionRate: input.commissionRate ?? null,
      createdAt: new Date(ctx.clock.now()),
    });
    if (!inserted) throw emailAlreadyExists();
    await bindResource(tx, ctx, effect, id);
    await recordAudit(tx, ctx, {
      action: "salesperson.create",
      resourceType: "salesperson",
      resourceId: id,
      success: true,
      organizationId: scope.organizationId,
      brandId: scope.brandId,
      details: { name, email, commissionRate: input.commissionRate ?? null },
    });
  });
  return { success: true, salesperson: { id, name, email } };
}

/** `GET /api/admin/salespeople`: the organization's salespeople, oldest first. */
export async function listSalespeople({ ctx }: { ctx: Ctx }): Promise<ListSalespeopleReply> {
  const scope = assertRole(ctx, "admin");
  const rows = await listSalespeopleOf(ctx.db, scope.organizationId);
  return {
    organizationId: scope.organizationId,
    salespeople: rows.map((row) => ({ id: row.id, name: row.name, email: row.email, commissionRate: row.commissionRate, brandId: row.brandId, createdAt: row.createdAt.getTime() })),
  };
}
