// Webhook endpoint administration: create (secret rules, sealed at rest, masked on GET), list with
// availableEvents, delete, roles and tenancy (another organization's ids are 404), and the SSRF
// refusals with ALLOW_PRIVATE_WEBHOOK_URLS off.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { auditLogs, sessions, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { decrypt, sha256 } from "../lib/crypto.js";

let t: TestApp;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;
beforeAll(async () => {
  // The flag stays off here: public addresses only.
  t = await buildTestApp();
  a = await registerOwner(t, "Shop A");
  b = await registerOwner(t, "Shop B");
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const PUBLIC_URL = "https://93.184.215.14/hooks";
const create = (session: string, body: Record<string, unknown>) => adminCall(t, "POST", "/api/admin/webhooks", { session, body: { name: "Shop hook", url: PUBLIC_URL, ...body } });

describe("POST /api/admin/webhooks", () => {
  it("generates a whsec_ secret when omitted, returns it once, stores it sealed, and GET shows it masked", async () => {
    const res = await create(a.session, { events: ["checkout.completed"], headers: { "X-Shop": "a" } });
    expect(res.statusCode, res.body).toBe(200);
    const created = json(res);
    expect(created).toMatchObject({ success: true, name: "Shop hook", url: PUBLIC_URL, events: ["checkout.completed"], headers: { "X-Shop": "a" }, enabled: true, disabledReason: null });
    expect(created.secret).toMatch(/^whsec_/);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(24);

    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row.sealedSecret).not.toContain(created.secret.slice(6));
    expect(decrypt(row.sealedSecret, t.deps.config.encryptionKey)).toBe(created.secret);
    expect(row).toMatchObject({ organizationId: a.organizationId, brandId: a.brandId });
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_endpoint.create"), eq(auditLogs.resourceId, created.id)))).toHaveLength(1);
    expect(JSON.stringify(await db().select().from(auditLogs))).not.toContain(created.secret);

    const listed = await adminCall(t, "GET", "/api/admin/webhooks", { session: a.session });
    expect(listed.statusCode).toBe(200);
    const body = json(listed);
    expect(body.availableEvents).toEqual(["checkout.created", "checkout.completed", "payment.succeeded", "payment.failed", "order.confirmed", "upsell.accepted", "upsell.declined", "refund.succeeded", "refund.failed", "dispute.created", "dispute.closed"]);
    const view = body.endpoints.find((e: { id: string }) => e.id === created.id);
    expect(view.secret).toBe(`whsec_…${created.secret.slice(-4)}`);
    expect(listed.body).not.toContain(created.secret);
    expect(view.stats).toEqual({ totalDeliveries: 0, successRate: 0 });
    expect(body.stats).toEqual({ totalDeliveries: 0, successRate: 0 });
  });

  it("keeps a supplied secret, defaults events to * and name to the host", async () => {
    const res = await adminCall(t, "POST", "/api/admin/webhooks", { session: a.session, body: { url: PUBLIC_URL, secret: "a-plain-secret-16" } });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ secret: "a-plain-secret-16", events: ["*"], name: "93.184.215.14" });
  });

  it("refuses a secret shorter than 16 characters, a malformed whsec_ secret, unknown events and signature headers with 400", async () => {
    const short = await create(a.session, { secret: "too-short" });
    expect(short.statusCode).toBe(400);
    expect(json(short)).toMatchObject({ code: "VALIDATION_ERROR", details: "secret" });
    expect((await create(a.session, { secret: "whsec_not base64 at all!!" })).statusCode).toBe(400);
    const unknown = await create(a.session, { events: ["order.shipped"] });
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).code).toBe("VALIDATION_ERROR");
    for (const name of ["webhook-signature", "Webhook-Id", "content-type"]) {
      const res = await create(a.session, { headers: { [name]: "forged" } });
      expect(res.statusCode).toBe(400);
      expect(json(res).details).toBe(`headers.${name}`);
    }
    expect((await create(a.session, { url: "ftp://93.184.215.14/x" })).statusCode).toBe(400);
    expect((await create(a.session, { url: "not a url" })).statusCode).toBe(400);
  });

  it("refuses loopback, private, metadata and names resolving to loopback while ALLOW_PRIVATE_WEBHOOK_URLS is off", async () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data", "http://localhost:3000/hook", "http://[::1]/hook", "http://192.168.1.10/"]) {
      const res = await create(a.session, { url });
      expect(res.statusCode, url).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "url" });
      expect(json(res).error).toMatch(/^Webhook URL not allowed: /);
    }
    expect(await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.url, "http://10.0.0.1/hook"))).toHaveLength(0);
  });

  it("lets an admin create, a member only read (403 on create), and answers 401 without a session", async () => {
    const admin = await addUser(t, a.session, "admin");
    expect((await create(admin.session, {})).statusCode).toBe(200);
    const member = await addUser(t, a.session, "member", [a.brandId]);
    expect((await create(member.session, {})).statusCode).toBe(403);
    expect((await adminCall(t, "GET", "/api/admin/webhooks", { session: member.session })).statusCode).toBe(200);
    const none = await adminCall(t, "GET", "/api/admin/webhooks");
    expect(none.statusCode).toBe(401);
    expect(json(none).error).toBe("Unauthorized");
  });
});

describe("tenancy and DELETE", () => {
  it("shows, tests, lists, resends and deletes only the session brand's endpoints: another organization's ids are 404", async () => {
    const mine = json(await create(a.session, { name: "A's" }));
    const theirs = json(await create(b.session, { name: "B's" }));
    const listed = json(await adminCall(t, "GET", "/api/admin/webhooks", { session: a.session }));
    expect(listed.endpoints.map((e: { id: string }) => e.id)).toContain(mine.id);
    expect(listed.endpoints.map((e: { id: string }) => e.id)).not.toContain(theirs.id);

    await db().insert(webhookDeliveries).values({
      id: "msg_theirs",
      eventId: "evt_theirs",
      target: theirs.id,
      endpointId: theirs.id,
      brandId: b.brandId,
      eventType: "checkout.created",
      url: PUBLIC_URL,
      body: "{}",
      status: "failed",
      attempts: 10,
      nextAttemptAt: new Date(t.clock.now()),
      createdAt: new Date(t.clock.now()),
    });
    for (const [method, url] of [
      ["POST", `/api/admin/webhooks/${theirs.id}/test`],
      ["GET", `/api/admin/webhooks/${theirs.id}/deliveries`],
      ["DELETE", `/api/admin/webhooks/${theirs.id}`],
      ["POST", "/api/admin/webhooks/deliveries/msg_theirs/resend"],
      ["DELETE", "/api/admin/webhooks/whe_missing"],
    ] as const) {
      const res = await adminCall(t, method, url, { session: a.session });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const [still] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, theirs.id));
    expect(still.deletedAt).toBeNull();

    const deleted = await adminCall(t, "DELETE", `/api/admin/webhooks/${mine.id}`, { session: a.session });
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ success: true, id: mine.id });
    const after = json(await adminCall(t, "GET", "/api/admin/webhooks", { session: a.session }));
    expect(after.endpoints.map((e: { id: string }) => e.id)).not.toContain(mine.id);
    expect((await adminCall(t, "DELETE", `/api/admin/webhooks/${mine.id}`, { session: a.session })).statusCode).toBe(404);
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_endpoint.delete"), eq(auditLogs.resourceId, mine.id)))).toHaveLength(1);
  });

  it("answers 409 when resending a delivery that is still pending, 403 for a member", async () => {
    const mine = json(await create(a.session, {}));
    await db().insert(webhookDeliveries).values({
      id: "msg_pending",
      eventId: "evt_pending",
      target: mine.id,
      endpointId: mine.id,
      brandId: a.brandId,
      eventType: "checkout.created",
      url: PUBLIC_URL,
      body: "{}",
      status: "pending",
      attempts: 1,
      nextAttemptAt: new Date(t.clock.now() + 60_000),
      createdAt: new Date(t.clock.now()),
    });
    const res = await adminCall(t, "POST", "/api/admin/webhooks/deliveries/msg_pending/resend", { session: a.session });
    expect(res.statusCode).toBe(409);
    const member = await addUser(t, a.session, "member", [a.brandId]);
    expect((await adminCall(t, "POST", "/api/admin/webhooks/deliveries/msg_pending/resend", { session: member.session })).statusCode).toBe(403);
    const listed = await adminCall(t, "GET", `/api/admin/webhooks/${mine.id}/deliveries?limit=500`, { session: member.session });
    expect(listed.statusCode).toBe(200);
    expect(json(listed).pagination).toEqual({ page: 1, limit: 100, total: 1, totalPages: 1 });
  });
});

describe("a session without a brand", () => {
  it("answers 400 No brand selected: endpoints are per brand", async () => {
    const owner = await registerOwner(t, "Brandless");
    await db().update(sessions).set({ brandId: null }).where(eq(sessions.idHash, sha256(owner.session)));
    for (const [method, url] of [
      ["GET", "/api/admin/webhooks"],
      ["POST", "/api/admin/webhooks"],
    ] as const) {
      const res = await adminCall(t, method, url, { session: owner.session, body: method === "POST" ? { url: PUBLIC_URL } : undefined });
      expect(res.statusCode, url).toBe(400);
      expect(json(res)).toMatchObject({ error: "No brand selected", code: "NO_BRAND" });
    }
  });
});

describe("the send-time guard", () => {
  it("refuses at send time a token webhookUrl on a private address (DNS rebinding, or a URL never checked at creation)", async () => {
    // A brand without endpoints: this file's endpoints point at a public address nothing may be sent to.
    const c = await registerOwner(t, "Shop C");
    const { enqueueEvents } = await import("../outbox/events.js");
    await enqueueEvents(db(), t.clock.now(), [{ brandId: c.brandId, type: "checkout.created", data: {} as never, webhookUrl: "http://localhost:9/hook" }, { brandId: c.brandId, type: "checkout.created", data: {} as never, webhookUrl: "http://127.0.0.1:9/hook" }]);
    await t.app.webhookWorker.deliverDue();
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.target, "token"));
    expect(rows).toHaveLength(2);
    // Nothing else was attempted (only the two refused token sends).
    expect((await db().select().from(webhookAttempts)).map((x) => x.deliveryId).sort()).toEqual(rows.map((r) => r.id).sort());
    for (const row of rows) {
      expect(row.status).toBe("pending");
      expect(row.lastError).toMatch(/^URL refused: /);
      expect(row.lastStatusCode).toBeNull();
    }
  });
});
