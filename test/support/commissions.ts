import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { commissions, orders } from "../../src/db/schema/index.js";
import type { PaymentProviderType } from "../../src/providers/types.js";
import { SALESPERSON_COOKIE } from "../../src/salespeople/portal.js";
import type { Registered } from "./admin.js";
import { json, type TestApp } from "./app.js";
import { completeCheckoutViaApi } from "./completed-checkout.js";
import { call, cookieOf, ORIGIN, PASSWORD, uniqueEmail } from "./identity.js";

/** A salesperson of the owner's organization, created through the back office, who can sign in to the portal. */
export async function newSalesperson(t: TestApp, owner: Registered) {
  const email = uniqueEmail("seller");
  const res = await call(t, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam Seller", email, password: PASSWORD } });
  expect(res.statusCode, res.body).toBe(200);
  return { ...json(res).salesperson, email } as { id: string; name: string; email: string };
}

/** A checkout of the owner's brand completed through the API with the salesperson's commission (10 % unless said); its order and commission rows. */
export async function commissionedOrder(t: TestApp, owner: Registered, salespersonId: string, options: { provider?: PaymentProviderType; commissionRate?: number; cardNumber?: string } = {}) {
  const done = await completeCheckoutViaApi(t, {
    provider: options.provider,
    cardNumber: options.cardNumber,
    claims: { brandId: owner.brandId },
    complete: { salesAttribution: { salespersonId, salespersonName: "Sam Seller", commissionRate: options.commissionRate ?? 0.1 } },
  });
  const db = t.deps.database.db;
  const [order] = await db.select().from(orders).where(and(eq(orders.orderId, done.orderId), eq(orders.kind, "checkout")));
  const [commission] = await db.select().from(commissions).where(eq(commissions.orderRef, order!.id));
  return { ...done, order: order!, commission: commission! };
}

export async function commissionOf(t: TestApp, id: string) {
  const [row] = await t.deps.database.db.select().from(commissions).where(eq(commissions.id, id));
  return row!;
}

/** Bulk action on commissions as the owner (CONTRACT §13). */
export const bulkCommissions = (t: TestApp, owner: Registered, action: string, commissionIds: string[]) => call(t, "POST", "/api/admin/commissions", { session: owner.session, body: { action, commissionIds } });

/** What the salesperson's portal shows (`GET /api/salesperson/auth` after signing in). */
export async function portalOf(t: TestApp, email: string) {
  const login = await t.app.inject({ method: "POST", url: "/api/salesperson/auth", headers: { origin: ORIGIN, "content-type": "application/json" }, payload: JSON.stringify({ email, password: PASSWORD }) });
  expect(login.statusCode, login.body).toBe(200);
  const res = await t.app.inject({ method: "GET", url: "/api/salesperson/auth", cookies: { [SALESPERSON_COOKIE]: cookieOf(login, SALESPERSON_COOKIE)!.value } });
  expect(res.statusCode, res.body).toBe(200);
  return json(res).commissions;
}
