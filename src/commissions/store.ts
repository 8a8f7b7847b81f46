import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { commissions } from "../db/schema/index.js";

// The commissions table's writes from outside the back office (a funnel charge's commission); the
// list, payout and status changes keep their own queries beside their verbs.

/** The commission of an order (orders.id), if a salesperson earned one on it. */
export async function findCommissionOfOrder(db: Db, orderRef: string) {
  const [row] = await db.select().from(commissions).where(eq(commissions.orderRef, orderRef));
  return row ?? null;
}

export async function insertCommission(tx: Db, row: typeof commissions.$inferInsert): Promise<void> {
  await tx.insert(commissions).values(row);
}
