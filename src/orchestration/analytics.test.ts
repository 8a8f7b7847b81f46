// Approval analytics (issue 34 item 7, docs/orchestration.md "Approval analytics"): attempts counted
// by recordApprovalStats in real transactions, the same attempts kept in a plain table, and the API's
// figures compared with SQL counts over that table; refunds netted on the charge's day; the shards'
// fold changes no figure; one mode at a time; a brand sees its own figures only.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, adminCall, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { approvalDailyStats, orders } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { amountBandOf, dailyApprovedVolume, foldApprovalStats, recordApprovalStats, recordRefundStats, type AttemptForStats } from "../payments/approval-stats.js";
import type { PaymentProviderType } from "../providers/types.js";

const DAY = 86_400_000;
const start = Date.UTC(2026, 10, 10, 12, 0, 0); // 10 November 2026, noon UTC
let t: TestApp;
let first: Registered; // adopts the default brand: the completed checkouts are its orders
let second: Registered;

const PROVIDERS: PaymentProviderType[] = ["vault_gateway_a", "vault_gateway_b", "intent_gateway"];
const CARD_BRANDS = ["visa", "mastercard", "amex", null];
const COUNTRIES = ["US", "GB", "DE", null];
const CODES = ["do_not_honor", "insufficient_funds", "card_declined", "fraudulent"];
const AMOUNTS = [599, 1000, 4999, 5000, 12_500, 99_900];

/** Attempts on the three days before `start`, deterministic: results, codes, cards and amounts spread over every breakdown. */
function attemptsOf(brandId: string, livemode: boolean, count: number, salt = 0): AttemptForStats[] {
  return Array.from({ length: count }, (_, i) => {
    const r = (i * 7919 + salt * 104_729) % 1000;
    const result = r < 700 ? "approved" : r < 930 ? "declined" : "failed";
    return {
      brandId,
      livemode,
      provider: PROVIDERS[i % 3]!,
      at: new Date(start - (1 + (i % 3)) * DAY + (i % 7) * 3_600_000),
      result,
      declineCode: result === "approved" ? null : result === "failed" ? "provider_timeout" : CODES[i % 4]!,
      cardBrand: CARD_BRANDS[(i >> 1) % 4]!,
      binCountry: COUNTRIES[(i >> 2) % 4]!,
      amountCents: AMOUNTS[i % 6]!,
      currency: i % 10 === 9 ? "EUR" : "USD",
      recovered: result === "approved" && i % 5 === 0,
    };
  });
}

/** The attempts as plain rows, for SQL counts the counters must agree with. */
async function keep(attempts: AttemptForStats[]): Promise<void> {
  const db = t.deps.database.db;
  for (const a of attempts) {
    await db.execute(sql`insert into test_attempts values (${a.brandId}, ${a.livemode}, ${a.provider}, ${a.at.toISOString().slice(0, 10)}, ${a.result},
      ${a.result === "approved" ? "" : a.declineCode}, ${a.cardBrand ?? ""}, ${a.binCountry ?? ""}, ${amountBandOf(a.amountCents, a.currency)}, ${a.amountCents}, ${a.currency}, ${a.recovered})`);
  }
}

/** Each attempt counted in its own transaction, as the pay path does; a few at a time. */
async function record(attempts: AttemptForStats[]): Promise<void> {
  for (let i = 0; i < attempts.length; i += 8) {
    await Promise.all(attempts.slice(i, i + 8).map((a) => withTransaction(t.deps.database.db, (tx) => recordApprovalStats(tx, a))));
  }
  await keep(attempts);
}

/** SQL counts over the kept attempts, per `column` (a breakdown), for one brand, mode and currency. */
async function counted(brandId: string, livemode: boolean, currency: string, column: string) {
  const result = await t.deps.database.db.execute(sql`
    select ${sql.raw(column)} as value,
      (count(*) filter (where result in ('approved', 'declined')))::int as attempts,
      (count(*) filter (where result = 'approved'))::int as approved,
      (count(*) filter (where result = 'declined'))::int as declined,
      (count(*) filter (where result = 'failed'))::int as failed,
      coalesce(sum(amount) filter (where result = 'approved'), 0)::int as "approvedAmount",
      (count(*) filter (where result = 'approved' and recovered))::int as recovered,
      coalesce(sum(amount) filter (where result = 'approved' and recovered), 0)::int as "recoveredAmount"
    from test_attempts where brand_id = ${brandId} and livemode = ${livemode} and currency = ${currency}
    group by 1 order by 1`);
  return (result as unknown as { rows: Record<string, number | string>[] }).rows;
}

const approvals = (session: string | undefined, query = "") => adminCall(t, "GET", `/api/admin/analytics/approvals${query}`, { session });
const pick = ({ value, attempts, approved, declined, failed, approvedAmount, recovered, recoveredAmount }: Record<string, unknown>) => ({ value, attempts, approved, declined, failed, approvedAmount, recovered, recoveredAmount });
const byValue = (a: { value: unknown }, b: { value: unknown }) => (String(a.value) < String(b.value) ? -1 : 1);

const RANGE = "?from=2026-11-01&to=2026-11-10&livemode=false";
const firstAttempts = () => attemptsOf(first.brandId, false, 240);

beforeAll(async () => {
  t = await buildTestApp();
  t.clock.set(start);
  await completeCheckoutViaApi(t); // the default brand's order, refunded below
  first = await registerOwner(t, "Approvals Org");
  second = await registerOwner(t, "Other Org");
  await t.deps.database.db.execute(sql`create table test_attempts (brand_id text, livemode boolean, provider text, day text, result text, decline_code text,
    card_brand text, bin_country text, band text, amount int, currency text, recovered boolean)`);
  await record(firstAttempts());
  await record(attemptsOf(first.brandId, true, 30, 1)); // live: never in the test figures
  await record(attemptsOf(second.brandId, false, 20, 2));
});
afterAll(() => t?.close());

describe("GET /api/admin/analytics/approvals", () => {
  it("answers the period's figures, equal to SQL counts of the attempts, per provider, card brand, BIN country, amount band and day", async () => {
    const res = await approvals(first.session, RANGE);
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ brandId: first.brandId, livemode: false, from: "2026-11-01", to: "2026-11-10", currency: "USD" });
    expect(body.currencies).toEqual([
      { currency: "USD", attempts: expect.any(Number) },
      { currency: "EUR", attempts: expect.any(Number) },
    ]);

    const [all] = await counted(first.brandId, false, "USD", "'all'");
    expect(pick({ ...body.totals, value: "all" })).toEqual(all);
    expect(body.totals.approvalRate).toBeCloseTo(Number(all!.approved) / Number(all!.attempts), 10);
    expect(body.totals.netAmount).toBe(body.totals.approvedAmount);
    expect(body.totals.recovered).toBeGreaterThan(0);
    expect(body.totals.failed).toBeGreaterThan(0);

    for (const [member, column] of [["byProvider", "provider"], ["byCardBrand", "card_brand"], ["byBinCountry", "bin_country"], ["byAmountBand", "band"]] as const) {
      expect(body[member].map(pick).sort(byValue), member).toEqual(await counted(first.brandId, false, "USD", column));
    }
    expect(body.byCardBrand.map((r: { value: string }) => r.value)).toContain(""); // unknown brand
    expect(body.byAmountBand.map((r: { value: string }) => r.value)).toEqual(["<10", "10-50", "50-100", "100-500", "500+"]);
    expect(body.byDay.map((d: Record<string, unknown>) => pick({ ...d, value: d.day }))).toEqual(await counted(first.brandId, false, "USD", "day"));

    const codes = (await counted(first.brandId, false, "USD", "decline_code")).filter((c) => c.value !== "");
    expect(body.byDeclineCode.map((c: { value: string; declined: number; failed: number }) => ({ value: c.value, declined: c.declined, failed: c.failed })).sort(byValue)).toEqual(
      codes.map((c) => ({ value: c.value, declined: c.declined, failed: c.failed })),
    );
    expect(body.byDeclineCode.reduce((n: number, c: { share: number }) => n + c.share, 0)).toBeCloseTo(1, 10);
  });

  it("answers another currency when asked, with its own figures", async () => {
    const body = json(await approvals(first.session, `${RANGE}&currency=EUR`));
    expect(body.currency).toBe("EUR");
    const [all] = await counted(first.brandId, false, "EUR", "'all'");
    expect(pick({ ...body.totals, value: "all" })).toEqual(all);
  });

  it("keeps test and live apart, and shows the brand's mode (test without real credentials) by default", async () => {
    const test = json(await approvals(first.session, "?from=2026-11-01&to=2026-11-10"));
    expect(test.livemode).toBe(false);
    expect(test.totals).toEqual(json(await approvals(first.session, RANGE)).totals);
    const live = json(await approvals(first.session, "?from=2026-11-01&to=2026-11-10&livemode=true"));
    expect(live.livemode).toBe(true);
    const [all] = await counted(first.brandId, true, live.currency, "'all'");
    expect(pick({ ...live.totals, value: "all" })).toEqual(all);
    expect(live.totals.attempts).toBeLessThan(test.totals.attempts);
  });

  it("defaults to the last 30 days, today included", async () => {
    const body = json(await approvals(first.session));
    expect(body).toMatchObject({ from: "2026-10-12", to: "2026-11-10" });
    expect(body.totals.attempts).toBeGreaterThan(0);
    const empty = json(await approvals(first.session, "?from=2026-01-01&to=2026-01-31"));
    expect(empty).toMatchObject({ currency: null, currencies: [], byProvider: [], byDay: [], totals: { attempts: 0, approvalRate: 0, approvedAmount: 0 } });
  });

  it("nets a refund that settles on a charge on the charge's day, provider and amount band; a charge the counters never saw changes nothing", async () => {
    const db = t.deps.database.db;
    const [order] = await db.select().from(orders).where(eq(orders.brandId, first.brandId));
    // The pay path counts its approval (the wiring is the pay verb's): the same day, provider, currency and amount.
    const paid: AttemptForStats = { brandId: first.brandId, livemode: false, provider: order!.provider as PaymentProviderType, at: order!.createdAt, result: "approved", declineCode: null, cardBrand: "visa", binCountry: "GB", amountCents: AMOUNT, currency: "USD", recovered: false };
    await withTransaction(db, (tx) => recordApprovalStats(tx, paid));
    const query = "?from=2026-11-10&to=2026-11-10&livemode=false";
    const before = json(await approvals(first.session, query));
    expect(before.totals.refundedAmount).toBe(0);

    const refund = await adminCall(t, "POST", `/api/admin/orders/${order!.id}/refunds`, { session: first.session, body: { amount: 250, reason: "other" } });
    expect(refund.statusCode, refund.body).toBe(200);
    const after = json(await approvals(first.session, query));
    expect(after.totals).toEqual({ ...before.totals, refundedAmount: 250, netAmount: before.totals.approvedAmount - 250 });
    expect(after.byProvider.find((p: { value: string }) => p.value === order!.provider)).toMatchObject({ refundedAmount: 250 });
    expect(after.byAmountBand.find((b: { value: string }) => b.value === "10-50")).toMatchObject({ refundedAmount: 250 });
    // The refund does not know the card: it is netted under the unknown brand and country (docs/orchestration.md).
    expect(after.byCardBrand.find((b: { value: string }) => b.value === "")).toMatchObject({ refundedAmount: 250 });
    expect(after.byDay).toEqual([expect.objectContaining({ day: "2026-11-10", refundedAmount: 250 })]);
    // The rest of the period is untouched.
    expect(json(await approvals(first.session, RANGE)).totals.refundedAmount).toBe(250);

    // A charge of a day without counted approvals (made before the counters, or by a path that records none).
    await completeCheckoutViaApi(t);
    const [other] = await db.select().from(orders).where(and(eq(orders.brandId, first.brandId), sql`${orders.id} <> ${order!.id}`));
    await db.update(orders).set({ createdAt: new Date(Date.UTC(2026, 9, 20, 8)) }).where(eq(orders.id, other!.id));
    expect((await adminCall(t, "POST", `/api/admin/orders/${other!.id}/refunds`, { session: first.session, body: { reason: "other" } })).statusCode).toBe(200);
    expect(json(await approvals(first.session, "?from=2026-10-20&to=2026-10-20&livemode=false")).totals).toMatchObject({ attempts: 0, refundedAmount: 0 });
    expect(await t.deps.database.db.$count(approvalDailyStats, sql`${approvalDailyStats.day} = '2026-10-20'`)).toBe(0);
  });

  it("answers the same figures after the shards of past days are folded, from fewer rows; a later refund on an old day needs no fold", async () => {
    const db = t.deps.database.db;
    const before = json(await approvals(first.session, RANGE));
    const rowsBefore = await db.$count(approvalDailyStats);
    const folded = await foldApprovalStats(db, "2026-11-10");
    expect(folded).toBeGreaterThan(0);
    expect(await db.$count(approvalDailyStats)).toBeLessThan(rowsBefore);
    expect(await db.$count(approvalDailyStats, and(sql`${approvalDailyStats.day} < '2026-11-10'`, sql`${approvalDailyStats.shard} <> 0`))).toBe(0);
    expect(json(await approvals(first.session, RANGE))).toEqual(before);
    expect(await foldApprovalStats(db, "2026-11-10")).toBe(0);

    // A refund settling now on a charge of two days ago adds to that day's shard 0: nothing to fold again.
    // (vault_gateway_b is the provider of that day's attempts: attemptsOf, i % 3 === 1.)
    const provider = "vault_gateway_b";
    const providerBefore = before.byProvider.find((p: { value: string }) => p.value === provider).refundedAmount;
    await withTransaction(db, (tx) =>
      recordRefundStats(tx, { brandId: first.brandId, livemode: false, provider, currency: "USD", chargedAt: new Date(start - 2 * DAY), chargeAmountCents: 5000, amountCents: 700, at: new Date(start) }),
    );
    expect(await db.$count(approvalDailyStats, and(sql`${approvalDailyStats.day} < '2026-11-10'`, sql`${approvalDailyStats.shard} <> 0`))).toBe(0);
    const after = json(await approvals(first.session, RANGE));
    expect(after.totals.refundedAmount).toBe(before.totals.refundedAmount + 700);
    expect(after.byProvider.find((p: { value: string }) => p.value === provider).refundedAmount).toBe(providerBefore + 700);
    expect(after.byAmountBand.find((b: { value: string }) => b.value === "50-100").refundedAmount).toBe(before.byAmountBand.find((b: { value: string }) => b.value === "50-100").refundedAmount + 700);
  });

  it("answers the day's approved volume per provider for routing's daily caps", async () => {
    const day = new Date(start - DAY);
    const volume = await dailyApprovedVolume(t.deps.database.db, first.brandId, false, "USD", day);
    const result = await t.deps.database.db.execute(sql`select provider, sum(amount)::int as amount from test_attempts
      where brand_id = ${first.brandId} and not livemode and currency = 'USD' and result = 'approved' and day = ${day.toISOString().slice(0, 10)} group by provider`);
    const expected = new Map((result as unknown as { rows: { provider: string; amount: number }[] }).rows.map((r) => [r.provider, r.amount]));
    expect(expected.size).toBeGreaterThan(0);
    expect(volume).toEqual(expected);
    expect(await dailyApprovedVolume(t.deps.database.db, second.brandId, true, "USD", day)).toEqual(new Map());
  });

  it("shows a brand its own figures only; another brand's id is 404", async () => {
    const mine = json(await approvals(second.session, RANGE));
    expect(mine.brandId).toBe(second.brandId);
    const [all] = await counted(second.brandId, false, mine.currency, "'all'");
    expect(pick({ ...mine.totals, value: "all" })).toEqual(all);
    const res = await approvals(second.session, `${RANGE}&brandId=${first.brandId}`);
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ code: "NOT_FOUND", error: "Brand not found" });
    expect((await approvals(second.session, `${RANGE}&brandId=${second.brandId}`)).statusCode).toBe(200);
  });

  it("is open to a member; 401 without a session", async () => {
    const member = await addUser(t, first.session, "member", [first.brandId]);
    const res = await approvals(member.session, RANGE);
    expect(res.statusCode).toBe(200);
    expect(json(res).totals.attempts).toBeGreaterThan(0);
    expect((await approvals(undefined, RANGE)).statusCode).toBe(401);
  });

  it("refuses a period over 366 days, a from after to and a day that does not exist (400 VALIDATION_ERROR)", async () => {
    for (const [query, details] of [
      ["?from=2025-11-09&to=2026-11-10", "from"],
      ["?from=2026-11-10&to=2026-11-01", "from"],
      ["?from=2026-02-30&to=2026-03-01", "from"],
      ["?to=2026-13-01", "to"],
      ["?currency=usd", undefined],
      ["?livemode=maybe", undefined],
    ] as const) {
      const res = await approvals(first.session, query);
      expect(res.statusCode, query).toBe(400);
      expect(json(res), query).toMatchObject({ code: "VALIDATION_ERROR", ...(details ? { details } : {}) });
    }
    // 366 days, the longest period, is answered.
    expect((await approvals(first.session, "?from=2025-11-10&to=2026-11-10")).statusCode).toBe(200);
  });
});
