// The events API (issue 33): the event id in every webhook body, GET /api/v1/events with cursor pages,
// filters and long poll, one brand and one mode per key, 30 days kept, redelivery to an endpoint with a
// key (a real receiver, a valid signature, one delivery per Idempotency-Key), test events, the scopes,
// and the OpenAPI `webhooks` that real events validate against.
import { Ajv } from "ajv";
import addFormatsImport from "ajv-formats";
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner, type Registered } from "../../test/support/admin.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";
import { HOUSEKEEPING_PRUNES } from "../app.js";
import { apiKeys, auditLogs, outboxEvents, webhookDeliveries } from "../db/schema/index.js";
import { runHousekeeping } from "../jobs/housekeeping.js";
import { ManualClock } from "../lib/clock.js";
import { EVENT_TYPES, enqueueEvents, type EventType } from "../outbox/events.js";
import { sampleEvent } from "./events.js";

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;
const DAY_MS = 24 * 3_600_000;

let t: TestApp;
let owner: Registered;
let other: Registered;
let key: string;
let otherKey: string;
let liveKey: string;
let receiver: Receiver;
beforeAll(async () => {
  // The standardwebhooks verifier checks the timestamp against the real time: start the clock there.
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true", SESSION_IDLE_MINUTES: "10000000", SESSION_MAX_HOURS: "100000" }, clock: new ManualClock(Date.now()) });
  owner = await registerOwner(t, "Events shop");
  other = await registerOwner(t, "Other shop");
  key = (await createApiKey(t, owner.session)).secret;
  otherKey = (await createApiKey(t, other.session)).secret;
  // A live key of the same brand (key modes come with CONTRACT §39: here the row is marked live).
  const live = await createApiKey(t, owner.session, { name: "live" });
  await t.deps.database.db.update(apiKeys).set({ livemode: true }).where(eq(apiKeys.id, live.id));
  liveKey = live.secret;
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer = { status: 200 };
  t.clock.set(Date.now());
});

const db = () => t.deps.database.db;
const list = (query: string, secret = key) => withKey(t, "GET", `/api/v1/events${query ? `?${query}` : ""}`, secret);
/** Writes events of the owner's brand now (by the app's clock), as producers do. */
async function emit(type: EventType, brandId = owner.brandId, livemode = false): Promise<void> {
  const event = sampleEvent(brandId, type);
  await enqueueEvents(db(), t.clock.now(), [{ ...event, data: { ...event.data, livemode } } as typeof event]);
}
const idsOf = (res: { body: string }) => (JSON.parse(res.body).data as { id: string }[]).map((e) => e.id);

describe("the event id in the webhook body", () => {
  it("every delivery's body carries the event's id; GET /api/v1/events/<id> answers the same event; the signature verifies", async () => {
    const endpoint = json(await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { url: `${receiver.url}/hook`, events: ["*"] } }));
    try {
      const { orderId } = await completeCheckoutViaApi(t, { claims: { brandId: owner.brandId } });
      await t.app.webhookWorker.deliverDue();
      expect(receiver.received.length).toBe(4);
      const verifier = new Webhook(endpoint.secret);
      const deliveryIds = new Set<string>();
      for (const request of receiver.received) {
        const body = verifier.verify(request.body, request.headers as Record<string, string>) as { id: string; type: string; timestamp: string; data: Record<string, unknown> };
        expect(body.id).toMatch(/^evt_/);
        expect(Object.keys(body)).toEqual(["id", "type", "timestamp", "data"]);
        deliveryIds.add(request.headers["webhook-id"] as string);
        const fetched = await withKey(t, "GET", `/api/v1/events/${body.id}`, key);
        expect(fetched.statusCode, fetched.body).toBe(200);
        expect(json(fetched)).toEqual({ id: body.id, type: body.type, timestamp: body.timestamp, created: Date.parse(body.timestamp), livemode: false, data: body.data });
        expect(JSON.stringify(body.data)).toContain(orderId);
      }
      // webhook-id stays per delivery, distinct from the event id.
      expect([...deliveryIds].every((id) => id.startsWith("msg_"))).toBe(true);
    } finally {
      await adminCall(t, "DELETE", `/api/admin/webhooks/${endpoint.id}`, { session: owner.session });
    }
  });
});

describe("GET /api/v1/events", () => {
  it("pages newest first with startingAfter: no event twice, none missed, while new events keep coming; endingBefore pages back", async () => {
    const brand = await registerOwner(t, "Paging shop");
    const secret = (await createApiKey(t, brand.session)).secret;
    // 11 events over 6 instants: several share a created_at, ordered by insertion among themselves.
    for (let i = 0; i < 11; i += 1) {
      if (i % 2 === 0) t.clock.advance(1000);
      await emit(EVENT_TYPES[i % EVENT_TYPES.length], brand.brandId);
    }
    const all = await db().select({ id: outboxEvents.id }).from(outboxEvents).where(eq(outboxEvents.brandId, brand.brandId));
    const seen: string[] = [];
    let page = await list("limit=3", secret);
    const first = json(page);
    for (;;) {
      expect(page.statusCode, page.body).toBe(200);
      const body = json(page);
      seen.push(...idsOf(page));
      // Concurrent new events (time moves on): newer than every page already read, so never on a later page.
      t.clock.advance(5);
      await emit("payment.succeeded", brand.brandId);
      if (!body.hasMore) break;
      page = await list(`limit=3&startingAfter=${body.data.at(-1).id}`, secret);
    }
    expect(seen).toHaveLength(11);
    expect(new Set(seen).size).toBe(11);
    expect(new Set(seen)).toEqual(new Set(all.map((r) => r.id)));
    // Newest first: created never increases down the list.
    const created = [] as number[];
    for (const id of seen) created.push(json(await withKey(t, "GET", `/api/v1/events/${id}`, secret)).created);
    expect([...created].sort((a, b) => b - a)).toEqual(created);

    // endingBefore the first page's first event: the newer events made meanwhile, newest first, 3 a page.
    const newer = await list(`limit=3&endingBefore=${first.data[0].id}`, secret);
    expect(newer.statusCode, newer.body).toBe(200);
    expect(json(newer).hasMore).toBe(true);
    const newerPage = json(newer).data as { id: string; created: number }[];
    expect(newerPage).toHaveLength(3);
    expect(newerPage[0].created).toBeGreaterThanOrEqual(newerPage[2].created);
    expect(newerPage.some((e) => seen.includes(e.id))).toBe(false);
    // Walking back up with endingBefore gathers exactly the events made while paging, once each.
    const back: string[] = [...newerPage.map((e) => e.id)];
    let cursor = newerPage[0].id;
    for (;;) {
      const res = json(await list(`limit=3&endingBefore=${cursor}`, secret));
      back.push(...(res.data as { id: string }[]).map((e) => e.id));
      if (!res.hasMore) break;
      cursor = res.data[0].id;
    }
    // One made after each of the 4 pages.
    expect(back).toHaveLength(4);
    expect(new Set(back).size).toBe(back.length);
  });

  it("filters by one or several types and by a created range; refuses an unknown type, both cursors, a foreign cursor", async () => {
    const brand = await registerOwner(t, "Filter shop");
    const secret = (await createApiKey(t, brand.session)).secret;
    const start = t.clock.now();
    await emit("order.confirmed", brand.brandId);
    t.clock.advance(60_000);
    await emit("refund.succeeded", brand.brandId);
    t.clock.advance(60_000);
    await emit("payment.failed", brand.brandId);
    const typesOf = async (query: string) => (json(await list(query, secret)).data as { type: string }[]).map((e) => e.type);
    expect(await typesOf("")).toEqual(["payment.failed", "refund.succeeded", "order.confirmed"]);
    expect(await typesOf("type=refund.succeeded")).toEqual(["refund.succeeded"]);
    expect(await typesOf("type=refund.succeeded&type=order.confirmed")).toEqual(["refund.succeeded", "order.confirmed"]);
    expect(await typesOf("type=payment.failed,order.confirmed")).toEqual(["payment.failed", "order.confirmed"]);
    expect(await typesOf(`createdGte=${start + 60_000}`)).toEqual(["payment.failed", "refund.succeeded"]);
    expect(await typesOf(`createdLte=${start + 60_000}`)).toEqual(["refund.succeeded", "order.confirmed"]);
    expect(await typesOf(`createdGte=${start + 1}&createdLte=${start + 60_000}`)).toEqual(["refund.succeeded"]);

    const unknown = await list("type=order.shipped", secret);
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown)).toMatchObject({ code: "VALIDATION_ERROR", details: "type" });
    const [someEvent] = idsOf(await list("", secret));
    const both = await list(`startingAfter=${someEvent}&endingBefore=${someEvent}`, secret);
    expect(both.statusCode).toBe(400);
    expect(json(both)).toMatchObject({ code: "VALIDATION_ERROR" });
    // Another brand's event is no cursor of this key.
    const foreign = await list(`startingAfter=${someEvent}`, key);
    expect(foreign.statusCode).toBe(400);
    expect(json(foreign)).toMatchObject({ code: "VALIDATION_ERROR", details: "startingAfter" });
    expect((await list("limit=101", secret)).statusCode).toBe(400);
    expect((await list("limit=0", secret)).statusCode).toBe(400);
  });

  it("shows only the key's brand and the key's mode: another brand's or mode's event is 404", async () => {
    await emit("order.confirmed", owner.brandId, false);
    await emit("order.confirmed", owner.brandId, true);
    await emit("order.confirmed", other.brandId, false);
    const test = json(await list("limit=100"));
    const live = json(await list("limit=100", liveKey));
    const others = json(await list("limit=100", otherKey));
    expect(test.livemode).toBe(false);
    expect(live.livemode).toBe(true);
    const rows = await db().select().from(outboxEvents);
    const modeOf = new Map(rows.map((r) => [r.id, r]));
    expect(test.data.every((e: { id: string }) => modeOf.get(e.id)!.brandId === owner.brandId && !modeOf.get(e.id)!.livemode)).toBe(true);
    expect(live.data.length).toBeGreaterThan(0);
    expect(live.data.every((e: { id: string; livemode: boolean }) => modeOf.get(e.id)!.brandId === owner.brandId && e.livemode)).toBe(true);
    expect(others.data.every((e: { id: string }) => modeOf.get(e.id)!.brandId === other.brandId)).toBe(true);

    const testEvent = test.data[0].id;
    const liveEvent = live.data[0].id;
    expect((await withKey(t, "GET", `/api/v1/events/${testEvent}`, key)).statusCode).toBe(200);
    for (const [id, secret] of [
      [testEvent, liveKey],
      [liveEvent, key],
      [testEvent, otherKey],
      ["evt_unknown", key],
    ]) {
      const res = await withKey(t, "GET", `/api/v1/events/${id}`, secret);
      expect(res.statusCode, `${id}`).toBe(404);
      expect(json(res)).toMatchObject({ error: "Event not found", code: "NOT_FOUND" });
    }
  });

  it("keeps events 30 days: older ones are no longer listed or found, and housekeeping deletes them", async () => {
    const brand = await registerOwner(t, "Retention shop");
    const secret = (await createApiKey(t, brand.session)).secret;
    await emit("order.confirmed", brand.brandId);
    await emit("payment.succeeded", brand.brandId);
    await t.app.webhookWorker.deliverDue();
    // Mailed receipts are the receipts job's; mark them handled so only the age decides.
    await db().update(outboxEvents).set({ receiptAt: new Date(t.clock.now()) }).where(eq(outboxEvents.brandId, brand.brandId));
    const ids = idsOf(await list("", secret));
    expect(ids).toHaveLength(2);

    // 29 days later (and with RETENTION_DAYS at 7): still there, housekeeping keeps them.
    t.clock.advance(29 * DAY_MS);
    await runHousekeeping(db(), HOUSEKEEPING_PRUNES, { clock: t.clock, signal: new AbortController().signal, retentionDays: 7 });
    expect(idsOf(await list("", secret))).toEqual(ids);
    expect((await withKey(t, "GET", `/api/v1/events/${ids[0]}`, secret)).statusCode).toBe(200);

    // Past 30 days: gone from the API at once, and from the table at the next housekeeping pass.
    t.clock.advance(DAY_MS + 1000);
    expect(idsOf(await list("", secret))).toEqual([]);
    expect((await withKey(t, "GET", `/api/v1/events/${ids[0]}`, secret)).statusCode).toBe(404);
    await runHousekeeping(db(), HOUSEKEEPING_PRUNES, { clock: t.clock, signal: new AbortController().signal, retentionDays: 7 });
    expect(await db().select().from(outboxEvents).where(eq(outboxEvents.brandId, brand.brandId))).toEqual([]);
  });

  it("waitSeconds holds an empty page and answers as soon as a newer event exists", async () => {
    const brand = await registerOwner(t, "Waiting shop");
    const secret = (await createApiKey(t, brand.session)).secret;
    await emit("order.confirmed", brand.brandId);
    const [newest] = idsOf(await list("limit=1", secret));
    const started = performance.now();
    const waiting = list(`endingBefore=${newest}&waitSeconds=20`, secret);
    await new Promise((resolve) => setTimeout(resolve, 600));
    t.clock.advance(1000);
    await emit("refund.succeeded", brand.brandId);
    const res = await waiting;
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).data.map((e: { type: string }) => e.type)).toEqual(["refund.succeeded"]);
    expect(performance.now() - started).toBeLessThan(10_000);
    // Nothing newer: the wait ends empty after waitSeconds.
    const [latest] = idsOf(await list("limit=1", secret));
    const empty = await list(`endingBefore=${latest}&waitSeconds=1`, secret);
    expect(json(empty)).toEqual({ data: [], hasMore: false, livemode: false });
  });
});

describe("scopes", () => {
  it("events:read lists and fetches; webhooks:write redelivers and triggers; a key without them is 403; new keys hold all six", async () => {
    const created = json(await adminCall(t, "POST", "/api/admin/api-keys", { session: owner.session, body: { name: "all" } }));
    expect(created.apiKey.scopes).toEqual(["checkouts:write", "orders:read", "orders:refund", "upsell:write", "events:read", "webhooks:write"]);
    const narrow = (await createApiKey(t, owner.session, { scopes: ["orders:read"] })).secret;
    const res = await list("", narrow);
    expect(res.statusCode).toBe(403);
    expect(json(res)).toMatchObject({ error: "API key lacks scope events:read", code: "FORBIDDEN" });
    expect((await withKey(t, "GET", "/api/v1/events/evt_x", narrow)).statusCode).toBe(403);
    const redeliver = await withKey(t, "POST", "/api/v1/events/evt_x/redeliver", narrow, { endpointId: "whe_x" });
    expect(redeliver.statusCode).toBe(403);
    expect(json(redeliver)).toMatchObject({ error: "API key lacks scope webhooks:write" });
    expect((await withKey(t, "POST", "/api/v1/events/trigger", narrow, { type: "order.confirmed" })).statusCode).toBe(403);
    // No key at all, or a session: 401.
    expect((await withKey(t, "GET", "/api/v1/events", null)).statusCode).toBe(401);
    expect((await adminCall(t, "GET", "/api/v1/events", { session: owner.session })).statusCode).toBe(401);
  });
});

describe("POST /api/v1/events/<id>/redeliver", () => {
  it("sends the event again to an endpoint of the brand, as a new delivery a real receiver verifies; once per Idempotency-Key", async () => {
    const endpoint = json(await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { url: `${receiver.url}/again`, events: ["refund.succeeded"] } }));
    try {
      await emit("order.confirmed");
      const [eventId] = idsOf(await list("type=order.confirmed&limit=1"));
      const headers = { "idempotency-key": `redeliver-${eventId}` };
      const res = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, key, { endpointId: endpoint.id }, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({ success: true, delivered: true, delivery: { eventId, eventType: "order.confirmed", status: "succeeded", attempts: 1 } });
      // Not subscribed to order.confirmed, but named: the receiver got it, signed with the endpoint's secret.
      const got = receiver.received.filter((r) => r.path === "/again");
      expect(got).toHaveLength(1);
      const body = new Webhook(endpoint.secret).verify(got[0].body, got[0].headers as Record<string, string>) as { id: string; type: string };
      expect(body).toMatchObject({ id: eventId, type: "order.confirmed" });
      expect(got[0].headers["webhook-id"]).toBe(json(res).delivery.id);

      // The same key again: the same delivery's state, nothing sent.
      const again = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, key, { endpointId: endpoint.id }, headers);
      expect(again.statusCode, again.body).toBe(200);
      expect(json(again).delivery.id).toBe(json(res).delivery.id);
      expect(receiver.received.filter((r) => r.path === "/again")).toHaveLength(1);
      // Without a key, or another key: one more delivery each.
      const third = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, key, { endpointId: endpoint.id });
      expect(json(third).delivery.id).not.toBe(json(res).delivery.id);
      expect(receiver.received.filter((r) => r.path === "/again")).toHaveLength(2);
      expect(await db().select().from(webhookDeliveries).where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.endpointId, endpoint.id)))).toHaveLength(2);
      expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_delivery.redeliver"), eq(auditLogs.resourceId, json(res).delivery.id)))).toHaveLength(1);

      // A failing receiver: delivered false, and the delivery goes on the retry schedule.
      receiver.answer = { status: 500 };
      const failed = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, key, { endpointId: endpoint.id });
      expect(json(failed)).toMatchObject({ delivered: false, delivery: { status: "pending", lastStatusCode: 500 } });

      // Another brand's endpoint, or another brand's key for this event: 404; another mode's endpoint: 409.
      const foreignEndpoint = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, otherKey, { endpointId: endpoint.id });
      expect(foreignEndpoint.statusCode).toBe(404);
      expect(json(foreignEndpoint)).toMatchObject({ code: "NOT_FOUND" });
      const unknownEndpoint = await withKey(t, "POST", `/api/v1/events/${eventId}/redeliver`, key, { endpointId: "whe_nope" });
      expect(json(unknownEndpoint)).toMatchObject({ error: "Webhook endpoint not found" });
      await emit("order.confirmed", owner.brandId, true);
      const [liveEvent] = idsOf(await list("limit=1", liveKey));
      const otherMode = await withKey(t, "POST", `/api/v1/events/${liveEvent}/redeliver`, liveKey, { endpointId: endpoint.id });
      expect(otherMode.statusCode).toBe(409);
      expect(json(otherMode)).toMatchObject({ code: "CONFLICT" });
    } finally {
      await adminCall(t, "DELETE", `/api/admin/webhooks/${endpoint.id}`, { session: owner.session });
    }
  });
});

describe("POST /api/v1/events/trigger", () => {
  it("makes a test event of the type for the key's brand, listed and delivered; a live key is refused", async () => {
    const res = await withKey(t, "POST", "/api/v1/events/trigger", key, { type: "refund.succeeded" });
    expect(res.statusCode, res.body).toBe(201);
    const event = json(res);
    expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: "refund.succeeded", livemode: false, data: { livemode: false, currency: "USD" } });
    expect(idsOf(await list("type=refund.succeeded&limit=1"))).toEqual([event.id]);
    const live = await withKey(t, "POST", "/api/v1/events/trigger", liveKey, { type: "refund.succeeded" });
    expect(live.statusCode).toBe(403);
    expect(json(live)).toMatchObject({ code: "FORBIDDEN" });
    const bad = await withKey(t, "POST", "/api/v1/events/trigger", key, { type: "nope" });
    expect(bad.statusCode).toBe(400);
  });
});

describe("OpenAPI webhooks", () => {
  it("documents every event type, and real events validate against their schema", async () => {
    const doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const validators = new Map(EVENT_TYPES.map((type) => [type, ajv.compile(doc.webhooks[type].post.requestBody.content["application/json"].schema)]));

    // Real events: a completed checkout's, a declined card's, and one triggered of every type.
    await completeCheckoutViaApi(t, { claims: { brandId: owner.brandId } });
    for (const type of EVENT_TYPES) expect((await withKey(t, "POST", "/api/v1/events/trigger", key, { type })).statusCode).toBe(201);
    const events = json(await list("limit=100")).data as { id: string; type: EventType; timestamp: string; data: unknown }[];
    const seenTypes = new Set<string>();
    for (const e of events) {
      const validate = validators.get(e.type)!;
      const body = { id: e.id, type: e.type, timestamp: e.timestamp, data: e.data };
      expect(validate(body), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      seenTypes.add(e.type);
    }
    expect([...seenTypes].sort()).toEqual([...EVENT_TYPES].sort());
    // A body that breaks its schema does not validate (the check bites).
    expect(validators.get("order.confirmed")!({ id: "evt_x", type: "order.confirmed", timestamp: new Date().toISOString(), data: { amount: "12" } })).toBe(false);
  });
});
