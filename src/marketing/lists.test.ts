// Marketing list mappings (SPEC "Marketing list mappings"): lists fetched from fake integrations over
// their wire protocols with the brand's settings, display names stored per brand, every error row.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { auditLogs, listMappings, sessions } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { startHttpFake } from "../lib/testing/fake-http.js";
import { startFakeIntegrations, type FakeIntegrations } from "./fake-integrations.js";

let t: TestApp;
let fake: FakeIntegrations;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;

const configure = async (session: string, provider: string, settings: Record<string, unknown>) => {
  const res = await adminCall(t, "POST", "/api/admin/settings", { session, body: { provider, settings } });
  expect(res.statusCode, res.body).toBe(200);
};

beforeAll(async () => {
  fake = await startFakeIntegrations();
  fake.lists.email_list_a = [
    { id: "XyZ1", name: "Newsletter" },
    { id: "XyZ2", name: "Buyers" },
    { id: "XyZ3", name: "Lapsed" },
  ];
  fake.lists.email_list_b = [
    { id: "b1", name: "Main audience" },
    { id: "b2", name: "Wholesale" },
    { id: "b3", name: "Events" },
  ];
  fake.lists.sms_segments = [
    { id: 101, name: "Recent SMS buyers" },
    { id: 102, name: "VIP texters" },
  ];
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  a = await registerOwner(t, "Lists A");
  b = await registerOwner(t, "Lists B");
  await configure(a.session, "email_list_a", { apiKey: "pk_list_a_secret_1234", baseUrl: fake.baseUrl });
  await configure(a.session, "email_list_b", { apiKey: "0123456789abcdef-us21", baseUrl: fake.baseUrl });
  await configure(a.session, "sms_segments", { apiKey: "sms_secret_key_5678", baseUrl: fake.baseUrl });
  await configure(b.session, "email_list_a", { apiKey: "pk_list_b_secret_9999", baseUrl: fake.baseUrl });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const getLists = (source: string, session?: string) => adminCall(t, "GET", `/api/admin/${source}/lists`, { session });
const putLists = (source: string, session: string | undefined, body: unknown) => adminCall(t, "PUT", `/api/admin/${source}/lists`, { session, body });

describe("GET /api/admin/<list_source>/lists", () => {
  it("email_list_a: follows links.next with the API-key and revision headers", async () => {
    fake.requests.length = 0;
    const res = await getLists("email_list_a", a.session);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      lists: [
        { listId: "XyZ1", originalName: "Newsletter", displayName: "Newsletter" },
        { listId: "XyZ2", originalName: "Buyers", displayName: "Buyers" },
        { listId: "XyZ3", originalName: "Lapsed", displayName: "Lapsed" },
      ],
      mappings: {},
      count: 3,
    });
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/lists/", "/api/lists/?page%5Bcursor%5D=1"]);
    expect(fake.requests[0]!.headers).toMatchObject({ authorization: "Klaviyo-API-Key pk_list_a_secret_1234", revision: "2024-10-15" });
  });

  it("email_list_b: pages by offset until total_items, with basic auth", async () => {
    fake.requests.length = 0;
    const res = await getLists("email_list_b", a.session);
    expect(json(res).lists.map((l: { listId: string }) => l.listId)).toEqual(["b1", "b2", "b3"]);
    expect(json(res).count).toBe(3);
    expect(fake.requests.map((r) => r.path)).toEqual(["/3.0/lists?count=1000&offset=0", "/3.0/lists?count=1000&offset=2"]);
    expect(fake.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from("anystring:0123456789abcdef-us21").toString("base64")}`);
  });

  it("sms_segments: one call with the bearer key; numeric ids become strings", async () => {
    fake.requests.length = 0;
    const res = await getLists("sms_segments", a.session);
    expect(json(res).lists).toEqual([
      { listId: "101", originalName: "Recent SMS buyers", displayName: "Recent SMS buyers" },
      { listId: "102", originalName: "VIP texters", displayName: "VIP texters" },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sms_secret_key_5678");
  });

  it("never sends the API key to another origin named by links.next", async () => {
    const received: string[] = [];
    const spy = await startHttpFake((request, response) => {
      received.push(request.path);
      response.end("{}");
    });
    try {
      fake.nextOverride = `${spy.baseUrl}/api/lists/?page%5Bcursor%5D=1`;
      const res = await getLists("email_list_a", a.session);
      expect(res.statusCode).toBe(200);
      expect(json(res).count).toBe(2);
      expect(received).toEqual([]);
    } finally {
      fake.nextOverride = null;
      await spy.close();
    }
  });

  it("not configured: 400 with success: false naming the missing key, lists: [] and mappings: {}", async () => {
    const res = await getLists("sms_segments", b.session);
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ success: false, error: "sms_segments is not configured: missing apiKey", lists: [], mappings: {} });
  });

  it("disabled in the settings: 400 with success: false, and the integration is not called", async () => {
    await configure(b.session, "email_list_a", { enabled: false });
    fake.requests.length = 0;
    try {
      const res = await getLists("email_list_a", b.session);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ success: false, error: "email_list_a is disabled in the settings", lists: [], mappings: {} });
      expect(fake.requests).toEqual([]);
    } finally {
      await configure(b.session, "email_list_a", { enabled: true });
    }
  });

  it.each([
    [503, "answers an error"],
    ["garbage", "answers unreadable JSON"],
  ] as const)("answers 500 Failed to fetch lists when the integration %s (%s)", async (mode, _why) => {
    fake.mode = mode;
    try {
      const res = await getLists("email_list_a", a.session);
      expect(res.statusCode).toBe(500);
      expect(json(res)).toMatchObject({ error: "Failed to fetch lists", code: "LISTS_FETCH_FAILED" });
      expect(res.body).not.toContain("pk_list_a_secret");
    } finally {
      fake.mode = null;
    }
  });

  it("answers 401 without a session and is open to a member", async () => {
    const none = await getLists("email_list_a");
    expect(none.statusCode).toBe(401);
    expect(json(none).error).toBe("Unauthorized");
    const member = await addUser(t, a.session, "member", [a.brandId]);
    expect((await getLists("email_list_a", member.session)).statusCode).toBe(200);
  });
});

describe("PUT /api/admin/<list_source>/lists", () => {
  const rowsOf = (brandId: string) => t.deps.database.db.select().from(listMappings).where(eq(listMappings.brandId, brandId));

  it("stores display names per brand, counts changed rows, and an empty name brings the original back", async () => {
    const first = await putLists("email_list_a", a.session, { mappings: { XyZ1: "Weekly news", XyZ2: "Customers" } });
    expect(first.statusCode, first.body).toBe(200);
    expect(json(first)).toEqual({ success: true, updated: 2 });

    const listed = json(await getLists("email_list_a", a.session));
    expect(listed.mappings).toEqual({ XyZ1: "Weekly news", XyZ2: "Customers" });
    expect(listed.lists[0]).toEqual({ listId: "XyZ1", originalName: "Newsletter", displayName: "Weekly news" });

    expect(json(await putLists("email_list_a", a.session, { mappings: { XyZ1: "Weekly news", XyZ2: "Best customers" } }))).toEqual({ success: true, updated: 1 });
    expect(json(await putLists("email_list_a", a.session, { mappings: { XyZ1: "" } }))).toEqual({ success: true, updated: 1 });
    expect(json(await putLists("email_list_a", a.session, { mappings: { XyZ1: "", XyZ3: "" } }))).toEqual({ success: true, updated: 0 });

    const after = json(await getLists("email_list_a", a.session));
    expect(after.lists[0]).toEqual({ listId: "XyZ1", originalName: "Newsletter", displayName: "Newsletter" });
    expect(after.mappings).toEqual({ XyZ2: "Best customers" });
    expect((await rowsOf(a.brandId)).map((r) => [r.source, r.listId, r.displayName])).toEqual([["email_list_a", "XyZ2", "Best customers"]]);

    const audits = await t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, "list_mapping.update"), eq(auditLogs.brandId, a.brandId)));
    expect(audits).toHaveLength(3);
    expect(audits[0]).toMatchObject({ actorId: a.userId, resourceId: "email_list_a", success: true, details: { source: "email_list_a", updated: 2 } });
  });

  it("keeps brands and sources apart", async () => {
    await putLists("email_list_a", b.session, { mappings: { XyZ2: "B's name" } });
    const a_ = json(await getLists("email_list_a", a.session));
    expect(a_.mappings).toEqual({ XyZ2: "Best customers" });
    expect(JSON.stringify(a_)).not.toContain("B's name");
    expect(json(await getLists("email_list_a", b.session)).mappings).toEqual({ XyZ2: "B's name" });
    expect(json(await getLists("email_list_b", a.session)).mappings).toEqual({});
  });

  it.each([
    [{}, "missing"],
    [{ mappings: "VIP" }, "a string"],
    [{ mappings: ["VIP"] }, "an array"],
    [{ mappings: null }, "null"],
    [{ mappings: { XyZ1: 5 } }, "a non-text name"],
    [{ mappings: { XyZ1: "x".repeat(201) } }, "a name over 200 characters"],
  ])("answers 400 Invalid mappings for %j (%s), storing nothing", async (body, _what) => {
    const before = await rowsOf(a.brandId);
    const res = await putLists("sms_segments", a.session, body);
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Invalid mappings");
    expect(await rowsOf(a.brandId)).toEqual(before);
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await putLists("sms_segments", undefined, { mappings: { 101: "x" } })).statusCode).toBe(401);
    const member = await addUser(t, a.session, "member", [a.brandId]);
    expect((await putLists("sms_segments", member.session, { mappings: { 101: "x" } })).statusCode).toBe(403);
    expect((await rowsOf(a.brandId)).some((r) => r.source === "sms_segments")).toBe(false);
  });

  it("answers 400 No brand context without a brand in the session, on GET and PUT", async () => {
    const user = await registerOwner(t, "No brand");
    await t.deps.database.db.update(sessions).set({ brandId: null }).where(eq(sessions.idHash, sha256(user.session)));
    for (const res of [await getLists("email_list_b", user.session), await putLists("email_list_b", user.session, { mappings: { b1: "x" } })]) {
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe("No brand context");
    }
  });
});

describe("an integration that does not answer", () => {
  it("answers 500 Failed to fetch lists once the (injected) timeout passes", async () => {
    const slow = await buildTestApp({ env: { INTEGRATION_TIMEOUT_MS: "300", ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
    try {
      const owner = await registerOwner(slow, "Slow");
      const res1 = await adminCall(slow, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "sms_segments", settings: { apiKey: "sms_slow_key_0000", baseUrl: fake.baseUrl } } });
      expect(res1.statusCode).toBe(200);
      fake.mode = "hang";
      const res = await adminCall(slow, "GET", "/api/admin/sms_segments/lists", { session: owner.session });
      expect(res.statusCode).toBe(500);
      expect(json(res)).toMatchObject({ error: "Failed to fetch lists", details: "sms_segments: timed out" });
    } finally {
      fake.mode = null;
      await slow.close();
    }
  });
});
