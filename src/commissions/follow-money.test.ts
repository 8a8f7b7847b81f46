// Commissions follow refunds (CONTRACT §38), through the refund route: a full refund cancels a pending or
// approved commission, a partial one reduces it pro rata with an audited adjustment row, a refund after
// payout adds a clawback line that the portal and the report show and the next payout nets.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { bulkCommissions, commissionedOrder, commissionOf, newSalesperson, portalOf } from "../../test/support/commissions.js";
import { call } from "../../test/support/identity.js";
import { auditLogs, commissionAdjustments } from "../db/schema/index.js";

let t: TestApp;
let shop: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t);
});
afterAll(() => t.close());

const refund = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session: shop.session, body });
const adjustmentsOf = (commissionId: string) => t.deps.database.db.select().from(commissionAdjustments).where(eq(commissionAdjustments.commissionId, commissionId));
const auditsOf = (commissionId: string, action: string) =>
  t.deps.database.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.resourceId, commissionId), eq(auditLogs.action, action)));
const report = async () => json(await call(t, "GET", "/api/admin/commissions?report=true", { session: shop.session })).report;

describe("a refund before payout", () => {
  it.each(["pending", "approved"] as const)("a full refund cancels a %s commission, audited", async (status) => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id);
    if (status === "approved") expect(json(await bulkCommissions(t, shop, "approve", [commission.id])).updated).toEqual([commission.id]);
    expect((await refund(order.id, { reason: "requested_by_customer" })).statusCode).toBe(200);
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "cancelled", commissionAmountCents: 100 });
    expect(await auditsOf(commission.id, "commission.cancel")).toEqual([expect.objectContaining({ details: { from: status, to: "cancelled", refundId: expect.stringMatching(/^rfd_/) } })]);
    expect(await adjustmentsOf(commission.id)).toEqual([]);
  });

  it("partial refunds reduce it pro rata from the original amount, each an audited adjustment row; the last one cancels it", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { commissionRate: 0.15 }); // 150 of 1000
    const first = json(await refund(order.id, { amount: 333, reason: "other" })).refund;
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "pending", commissionAmountCents: 100 }); // round(150 × 667 / 1000)
    await refund(order.id, { amount: 333, reason: "other" });
    expect((await commissionOf(t, commission.id)).commissionAmountCents).toBe(50); // round(150 × 334 / 1000), not 100 − 50
    expect((await adjustmentsOf(commission.id)).map((a) => [a.kind, a.amountCents]).sort()).toEqual([
      ["reduction", -50],
      ["reduction", -50],
    ]);
    expect(await auditsOf(commission.id, "commission.adjust")).toContainEqual(expect.objectContaining({ details: expect.objectContaining({ from: 150, to: 100, amount: -50, refundId: first.id }) }));
    await refund(order.id, { reason: "other" });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "cancelled", commissionAmountCents: 50 });
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("concurrent partial refunds each move the commission once: five of 100 leave half of it", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id);
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(order.id, { amount: 100, reason: "other" })));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect((await commissionOf(t, commission.id)).commissionAmountCents).toBe(50);
    expect((await adjustmentsOf(commission.id)).reduce((sum, a) => sum + a.amountCents, 0)).toBe(-50);
  });

  it("a refund the provider refuses changes nothing", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { cardNumber: "4000000000005126" });
    expect((await refund(order.id, { reason: "other" })).statusCode).toBe(402);
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "pending", commissionAmountCents: 100 });
    expect(await adjustmentsOf(commission.id)).toEqual([]);
  });
});

describe("a refund after payout", () => {
  it("adds a clawback line that the portal and the report show, and the next payout nets it", async () => {
    const sp = await newSalesperson(t, shop);
    const paid = await commissionedOrder(t, shop, sp.id);
    await bulkCommissions(t, shop, "approve", [paid.commission.id]);
    const payout = json(await bulkCommissions(t, shop, "markPaid", [paid.commission.id]));
    expect(payout.payouts).toEqual([{ salespersonId: sp.id, currency: "USD", commissions: 100, clawbacks: 0, net: 100 }]);

    const r = json(await refund(paid.order.id, { amount: 400, reason: "requested_by_customer" })).refund;
    expect(await commissionOf(t, paid.commission.id)).toMatchObject({ status: "paid", commissionAmountCents: 100 });
    const line = { commissionId: paid.commission.id, orderId: paid.orderId, salespersonId: sp.id, amount: -40, currency: "USD", refundId: r.id, disputeId: null, nettedAt: null };
    expect(await auditsOf(paid.commission.id, "commission.clawback")).toHaveLength(1);

    const portal = await portalOf(t, sp.email);
    expect(portal).toMatchObject({ paid: 100, clawedBack: -40, clawbackOpen: -40, byCurrency: [expect.objectContaining({ currency: "USD", paid: 100, clawedBack: -40, clawbackOpen: -40 })] });
    expect(portal.clawbacks).toEqual([{ ...line, id: expect.stringMatching(/^cadj_/), createdAt: t.clock.now() }]);
    const shown = await report();
    expect(shown.clawbacks.lines).toContainEqual(expect.objectContaining(line));
    expect(shown.clawbacks.byCurrency).toEqual([expect.objectContaining({ currency: "USD", open: expect.any(Number) })]);

    // The rest refunded: a second line for what is left of the 100 paid.
    await refund(paid.order.id, { reason: "requested_by_customer" });
    expect((await adjustmentsOf(paid.commission.id)).map((a) => a.amountCents).sort((x, y) => x - y)).toEqual([-60, -40]);

    // The next payout of this salesperson nets both lines: 150 − 100.
    const next = await commissionedOrder(t, shop, sp.id, { commissionRate: 0.15 });
    await bulkCommissions(t, shop, "approve", [next.commission.id]);
    const netted = json(await bulkCommissions(t, shop, "markPaid", [next.commission.id]));
    expect(netted.payouts).toEqual([{ salespersonId: sp.id, currency: "USD", commissions: 150, clawbacks: -100, net: 50 }]);
    expect((await adjustmentsOf(paid.commission.id)).every((a) => a.nettedAt?.getTime() === t.clock.now())).toBe(true);
    expect(await auditsOf(paid.commission.id, "commission.net_clawback")).toHaveLength(2);
    const after = await portalOf(t, sp.email);
    expect(after).toMatchObject({ paid: 250, clawedBack: -100, clawbackOpen: 0 });
    expect(after.clawbacks.every((c: { nettedAt: number | null }) => c.nettedAt === t.clock.now())).toBe(true);
  });

  it("a clawback larger than the next payout waits for a later one; the payout is never negative", async () => {
    const sp = await newSalesperson(t, shop);
    const paid = await commissionedOrder(t, shop, sp.id, { commissionRate: 0.5 }); // 500
    await bulkCommissions(t, shop, "approve", [paid.commission.id]);
    await bulkCommissions(t, shop, "markPaid", [paid.commission.id]);
    await refund(paid.order.id, { reason: "other" });
    const small = await commissionedOrder(t, shop, sp.id); // 100
    await bulkCommissions(t, shop, "approve", [small.commission.id]);
    expect(json(await bulkCommissions(t, shop, "markPaid", [small.commission.id])).payouts).toEqual([{ salespersonId: sp.id, currency: "USD", commissions: 100, clawbacks: 0, net: 100 }]);
    expect((await portalOf(t, sp.email)).clawbackOpen).toBe(-500);
  });
});
