// Housekeeping on a real database: expired idempotency keys, delivered webhook deliveries (with their
// attempts), dispatched outbox events and sent mails older than RETENTION_DAYS are deleted in bounded
// batches; newer rows and rows still being worked on are kept; one instance at a time holds a pass.
import { inArray } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { testEngine } from "../../test/support/database.js";
import { idempotencyKeys, mailOutbox, outboxEvents, webhookAttempts, webhookDeliveries } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";
import { HOUSEKEEPING_PRUNES } from "../app.js";
import { HOUSEKEEPING_LOCK, runHousekeeping } from "./housekeeping.js";

const DAY = 24 * 3_600_000;
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { RETENTION_DAYS: "7" } });
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const ago = (ms: number) => new Date(t.clock.now() - ms);
const pass = (batchSize?: number) => runHousekeeping(db(), HOUSEKEEPING_PRUNES, { clock: t.clock, signal: new AbortController().signal, retentionDays: 7, batchSize });

async function addDelivery(label: string, status: "pending" | "succeeded" | "failed", completedAgo: number | null) {
  const id = newId("msg");
  await db().insert(webhookDeliveries).values({
    id,
    eventId: newId("evt"),
    target: "token",
    brandId: "brand",
    eventType: `test.${label}`,
    url: "http://receiver.test/hook",
    body: "{}",
    status,
    attempts: 1,
    nextAttemptAt: ago(0),
    createdAt: ago((completedAgo ?? 0) + 1000),
    completedAt: completedAgo === null ? null : ago(completedAgo),
  });
  await db().insert(webhookAttempts).values({ id: newId("wha"), deliveryId: id, attempt: 1, statusCode: 200, durationMs: 5, error: null, success: status === "succeeded", createdAt: ago(completedAgo ?? 0) });
  return id;
}

async function addEvent(dispatchedAgo: number | null) {
  const id = newId("evt");
  await db()
    .insert(outboxEvents)
    .values({ id, brandId: "brand", type: "checkout.created", payload: {}, createdAt: ago((dispatchedAgo ?? 0) + 1000), dispatchedAt: dispatchedAgo === null ? null : ago(dispatchedAgo) });
  return id;
}

async function addMail(status: "pending" | "sent" | "logged" | "failed", sentAgo: number | null) {
  const id = newId("mail");
  await db()
    .insert(mailOutbox)
    .values({ id, to: "a@example.com", subject: "s", text: "t", status, nextAttemptAt: ago(0), createdAt: ago((sentAgo ?? 0) + 1000), sentAt: sentAgo === null ? null : ago(sentAgo) });
  return id;
}

async function addKey(expiresIn: number) {
  const key = newId("key");
  await db().insert(idempotencyKeys).values({ scope: "a:127.0.0.1 POST /x", key, requestHash: "h", state: "done", statusCode: 200, responseBody: "{}", createdAt: ago(DAY - expiresIn), expiresAt: ago(-expiresIn) });
  return key;
}

/** Which of `ids` are still in `column`'s table, sorted. */
async function idsLeft(column: PgColumn, ids: string[]): Promise<string[]> {
  const rows = await db().select({ id: column }).from(column.table).where(inArray(column, ids));
  return rows.map((row) => String(row.id)).sort();
}

describe("housekeeping", () => {
  it("deletes delivered deliveries (and their attempts) older than RETENTION_DAYS, keeps newer, pending and failed ones", async () => {
    const old = await addDelivery("old", "succeeded", 8 * DAY);
    const recent = await addDelivery("recent", "succeeded", 6 * DAY);
    const failed = await addDelivery("failed", "failed", 40 * DAY);
    const pending = await addDelivery("pending", "pending", null);
    const all = [old, recent, failed, pending];

    await t.app.jobs.trigger("housekeeping");

    expect(await idsLeft(webhookDeliveries.id, all)).toEqual([recent, failed, pending].sort());
    expect(await idsLeft(webhookAttempts.deliveryId, all)).toEqual([recent, failed, pending].sort());
  });

  it("deletes dispatched outbox events made before the retention (at least 30 days: the events API), keeps newer and undispatched ones", async () => {
    const old = await addEvent(30 * DAY);
    const recent = await addEvent(DAY);
    // Past RETENTION_DAYS (7 here) but within the events API's 30 days: kept.
    const listed = await addEvent(20 * DAY);
    const undispatched = await addEvent(null);
    await t.app.jobs.trigger("housekeeping");
    expect(await idsLeft(outboxEvents.id, [old, recent, listed, undispatched])).toEqual([recent, listed, undispatched].sort());
  });

  it("deletes sent and logged mails older than the retention, keeps newer, pending and failed ones", async () => {
    const sent = await addMail("sent", 8 * DAY);
    const logged = await addMail("logged", 9 * DAY);
    const recent = await addMail("sent", 2 * DAY);
    const failed = await addMail("failed", null);
    const pending = await addMail("pending", null);
    await t.app.jobs.trigger("housekeeping");
    expect(await idsLeft(mailOutbox.id, [sent, logged, recent, failed, pending])).toEqual([recent, failed, pending].sort());
  });

  it("purges expired idempotency keys and keeps live ones", async () => {
    const expired = await addKey(-60_000);
    const live = await addKey(60_000);
    await t.app.jobs.trigger("housekeeping");
    expect(await idsLeft(idempotencyKeys.key, [expired, live])).toEqual([live]);
  });

  it("works through a backlog larger than a batch, one bounded batch per transaction, and a second pass is harmless", async () => {
    // Events are kept 30 days whatever RETENTION_DAYS says (the events API, issue 33).
    const old = await Promise.all(Array.from({ length: 7 }, () => addEvent(31 * DAY)));
    const keep = await addEvent(0);
    const deleted = await pass(3);
    expect(deleted?.outbox_events).toBe(7);
    expect(await idsLeft(outboxEvents.id, [...old, keep])).toEqual([keep]);
    expect(await pass(3)).toMatchObject({ outbox_events: 0, webhook_deliveries: 0, mail_outbox: 0, idempotency_keys: 0 });
  });

  it("counts time by the injected clock: a delivery becomes old when the clock moves past the retention", async () => {
    const delivered = await addDelivery("aging", "succeeded", 6 * DAY);
    await t.app.jobs.trigger("housekeeping");
    expect(await idsLeft(webhookDeliveries.id, [delivered])).toEqual([delivered]);
    t.clock.advance(2 * DAY);
    await t.app.jobs.trigger("housekeeping");
    expect(await idsLeft(webhookDeliveries.id, [delivered])).toEqual([]);
  });

  it.skipIf(testEngine !== "postgres")("leaves the pass to the instance holding the housekeeping lock (PostgreSQL: several sessions)", async () => {
    const old = await addEvent(31 * DAY);
    const other = await t.deps.database.pool!.connect();
    try {
      await other.query("begin");
      await other.query("select pg_advisory_xact_lock($1)", [HOUSEKEEPING_LOCK]);
      expect(await pass()).toBeNull();
      expect(await idsLeft(outboxEvents.id, [old])).toEqual([old]);
      await other.query("commit");
      expect((await pass())?.outbox_events).toBe(1);
    } finally {
      await other.query("rollback").catch(() => {});
      other.release();
    }
  });
});
