// Custom domains (SPEC "Domains"): add, list, verify against a real DNS server and a fake hosting
// platform, set primary, delete, every error row, and serving a verified domain's brand.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { startFakeDns, type FakeDns } from "../../test/support/fake-dns.js";
import { abandonReservation } from "../../test/support/idempotency.js";
import { call } from "../../test/support/identity.js";
import { sha256 } from "../lib/crypto.js";
import { auditLogs, customDomains, DEFAULT_BRAND_ID, brands, sessions } from "../db/schema/index.js";
import { hostingEnv, startFakeHosting, type FakeHosting } from "./fake-hosting.js";
import { HOST_CACHE_MS } from "./host-brand.js";

let t: TestApp;
let hosting: FakeHosting;
let dns: FakeDns;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;
beforeAll(async () => {
  hosting = await startFakeHosting();
  dns = await startFakeDns();
  t = await buildTestApp({ env: { ...hostingEnv(hosting), DNS_SERVERS: dns.server } });
  await registerOwner(t, "First"); // adopts the default brand (CONTRACT §27); A and B get their own
  a = await registerOwner(t, "Shop A");
  b = await registerOwner(t, "Shop B");
});
afterAll(async () => {
  await t.close();
  await hosting.close();
  await dns.close();
});

const db = () => t.deps.database.db;
const rowOf = async (domain: string) => (await db().select().from(customDomains).where(eq(customDomains.domain, domain)))[0];
const auditOf = async (action: string, domain: string) => db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.resourceId, domain)));
const add = (session: string | undefined, body: unknown) => adminCall(t, "POST", "/api/admin/domains", { session, body });
const put = (session: string | undefined, body: unknown) => adminCall(t, "PUT", "/api/admin/domains", { session, body });
const branding = (host: string) => t.app.inject({ method: "GET", url: "/api/admin/branding", headers: { host } });
const CNAME = "cname.vercel-dns.com";
const IP = "76.76.21.21";

describe("POST /api/admin/domains", () => {
  it("adds a subdomain: stored unverified for the brand, CNAME instruction, sent to the platform", async () => {
    const res = await add(a.session, { domain: "Pay.Shop-A.com" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      domain: {
        domain: "pay.shop-a.com",
        brandId: a.brandId,
        verified: false,
        primary: false,
        createdAt: t.clock.now(),
        verification: null,
        dnsInstructions: [`Add a CNAME record for pay.shop-a.com pointing to ${CNAME}`],
      },
    });
    expect(await rowOf("pay.shop-a.com")).toMatchObject({ brandId: a.brandId, isRoot: false, verified: false });
    const sent = hosting.requests.find((r) => r.method === "POST" && r.path === "/v10/projects/prj_test/domains");
    expect(JSON.parse(sent!.body)).toEqual({ name: "pay.shop-a.com" });
    expect(sent!.headers.authorization).toBe("Bearer hosting-token-test");
    expect(await auditOf("domain.add", "pay.shop-a.com")).toMatchObject([{ actorId: a.userId, brandId: a.brandId, organizationId: a.organizationId, success: true }]);
  });

  it("adds a root domain (Public Suffix List apex) with the A record and the platform's TXT challenge", async () => {
    hosting.needsChallenge.add("shop-a.co.uk");
    const res = await add(a.session, { domain: "shop-a.co.uk", primary: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).domain).toMatchObject({
      domain: "shop-a.co.uk",
      primary: true,
      verified: false,
      verification: { type: "TXT", domain: "_vercel.co.uk", value: "vc-domain-verify=shop-a.co.uk,abc123" },
      dnsInstructions: [`Add an A record for shop-a.co.uk pointing to ${IP}`, "Add a TXT record for _vercel.co.uk with the value vc-domain-verify=shop-a.co.uk,abc123"],
    });
  });

  it("stores an internationalised name in punycode", async () => {
    const res = await add(a.session, { domain: "kasse.bücher-a.de" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).domain.domain).toBe("kasse.xn--bcher-a-n2a.de");
  });

  it("answers 409 Domain already exists with the existing domain's verification and instructions, adding nothing", async () => {
    const platformCalls = hosting.requests.length;
    const res = await add(a.session, { domain: "shop-a.co.uk" });
    expect(res.statusCode).toBe(409);
    expect(json(res)).toMatchObject({
      success: false,
      error: "Domain already exists",
      verification: { type: "TXT", domain: "_vercel.co.uk", value: "vc-domain-verify=shop-a.co.uk,abc123" },
      dnsInstructions: [`Add an A record for shop-a.co.uk pointing to ${IP}`, "Add a TXT record for _vercel.co.uk with the value vc-domain-verify=shop-a.co.uk,abc123"],
    });
    expect(hosting.requests.length).toBe(platformCalls);
    expect(await db().select().from(customDomains).where(eq(customDomains.domain, "shop-a.co.uk"))).toHaveLength(1);
  });

  it("an Idempotency-Key names the domain it added: a retry after the dead request's reservation was taken over answers it (200, not 409 exists), the platform asked once", async () => {
    const c = await registerOwner(t, "Shop C"); // its own brand: the lists of A and B stay as the tests below expect
    const headers = { "idempotency-key": "add-retry.shop-c.com" };
    const first = await call(t, "POST", "/api/admin/domains", { session: c.session, body: { domain: "retry.shop-c.com" }, headers });
    expect(first.statusCode, first.body).toBe(200);
    await abandonReservation(t, headers["idempotency-key"]);
    const retry = await call(t, "POST", "/api/admin/domains", { session: c.session, body: { domain: "retry.shop-c.com" }, headers });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(json(retry)).toEqual(json(first));
    expect(hosting.requests.filter((r) => r.method === "POST" && r.body.includes("retry.shop-c.com"))).toHaveLength(1);
    // Shop B with the same key string is its own request: the name is C's, so B gets the usual 409 without C's records.
    const foreign = await call(t, "POST", "/api/admin/domains", { session: b.session, body: { domain: "retry.shop-c.com" }, headers });
    expect(foreign.statusCode).toBe(409);
    expect(json(foreign)).toMatchObject({ verification: null, dnsInstructions: [] });
  });

  it("answers 409 for another brand's domain without showing its records", async () => {
    const res = await add(b.session, { domain: "shop-a.co.uk" });
    expect(res.statusCode).toBe(409);
    expect(json(res)).toMatchObject({ success: false, error: "Domain already exists", verification: null, dnsInstructions: [] });
    expect(res.body).not.toContain("vc-domain-verify");
    expect((await rowOf("shop-a.co.uk"))!.brandId).toBe(a.brandId);
  });

  it("answers 409 when the hosting platform has the domain in another project", async () => {
    hosting.takenElsewhere.add("taken.example.com");
    const res = await add(a.session, { domain: "taken.example.com" });
    expect(res.statusCode).toBe(409);
    expect(json(res)).toMatchObject({ success: false, error: "Domain already exists", details: "The hosting platform has this domain in another project" });
    expect(await rowOf("taken.example.com")).toBeUndefined();
  });

  it("answers 502 and stores nothing when the hosting platform fails", async () => {
    hosting.failWith = 500;
    try {
      const res = await add(a.session, { domain: "outage.example.com" });
      expect(res.statusCode).toBe(502);
      expect(json(res)).toMatchObject({ error: "Hosting platform request failed", code: "HOSTING_ERROR" });
    } finally {
      hosting.failWith = null;
    }
    expect(await rowOf("outage.example.com")).toBeUndefined();
  });

  it("two concurrent adds of one name: one stores it, the other answers 409", async () => {
    const [first, second] = await Promise.all([add(a.session, { domain: "race.shop-a.com" }), add(a.session, { domain: "race.shop-a.com" })]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
    expect(json(first.statusCode === 409 ? first : second).error).toBe("Domain already exists");
    expect(await db().select().from(customDomains).where(eq(customDomains.domain, "race.shop-a.com"))).toHaveLength(1);
    expect(await auditOf("domain.add", "race.shop-a.com")).toHaveLength(1);
    await adminCall(t, "DELETE", "/api/admin/domains?domain=race.shop-a.com", { session: a.session });
  });

  it.each([
    [{}, "Domain is required"],
    [{ domain: "" }, "Domain is required"],
    [{ domain: "*.example.com" }, "Invalid domain format"],
    [{ domain: "10.0.0.1" }, "Invalid domain format"],
    [{ domain: `${"x".repeat(64)}.example.com` }, "Invalid domain format"],
    [{ domain: "https://pay.example.com/" }, "Invalid domain format"],
  ])("refuses %j with 400 %s", async (body, error) => {
    const res = await add(a.session, body);
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe(error);
  });

  it("answers 401 Unauthorized without a session and 403 for a member", async () => {
    const none = await add(undefined, { domain: "anon.example.com" });
    expect(none.statusCode).toBe(401);
    expect(json(none).error).toBe("Unauthorized");
    const member = await addUser(t, a.session, "member", [a.brandId]);
    expect((await add(member.session, { domain: "member.example.com" })).statusCode).toBe(403);
    expect(await rowOf("member.example.com")).toBeUndefined();
    // A member may look.
    expect((await adminCall(t, "GET", "/api/admin/domains", { session: member.session })).statusCode).toBe(200);
  });

  it("answers 400 No brand selected when the session has no brand, on every route", async () => {
    const user = await registerOwner(t, "Brandless");
    await db().update(sessions).set({ brandId: null }).where(eq(sessions.idHash, sha256(user.session)));
    for (const res of [
      await adminCall(t, "GET", "/api/admin/domains", { session: user.session }),
      await add(user.session, { domain: "brandless.example.com" }),
      await put(user.session, { domain: "pay.shop-a.com", action: "verify" }),
      await adminCall(t, "DELETE", "/api/admin/domains?domain=pay.shop-a.com", { session: user.session }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe("No brand selected");
    }
  });
});

describe("GET /api/admin/domains", () => {
  it("lists the brand's domains only, with configured: true", async () => {
    await add(b.session, { domain: "pay.shop-b.com" });
    const res = await adminCall(t, "GET", "/api/admin/domains", { session: a.session });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, configured: true });
    expect(body.domains.map((d: { domain: string }) => d.domain).sort()).toEqual(["kasse.xn--bcher-a-n2a.de", "pay.shop-a.com", "shop-a.co.uk"]);
    expect(res.body).not.toContain("shop-b");
  });
});

describe("PUT /api/admin/domains action verify", () => {
  it("unconfigured DNS: verified false, the error names the missing CNAME record, nothing changes", async () => {
    const res = await put(a.session, { domain: "pay.shop-a.com", action: "verify" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      verified: false,
      error: `DNS not configured: missing CNAME record pay.shop-a.com → ${CNAME}`,
      dnsInstructions: [`Add a CNAME record for pay.shop-a.com pointing to ${CNAME}`],
    });
    expect(dns.questions).toContain("CNAME pay.shop-a.com");
    expect((await rowOf("pay.shop-a.com"))!.verified).toBe(false);
    expect(hosting.requests.some((r) => r.path.endsWith("/pay.shop-a.com/verify"))).toBe(false);
    expect(await auditOf("domain.verify", "pay.shop-a.com")).toMatchObject([{ success: false }]);
  });

  it("half-configured DNS: the A record is there, the error names only the missing TXT record", async () => {
    dns.set("shop-a.co.uk", { type: "A", address: IP });
    const res = await put(a.session, { domain: "shop-a.co.uk", action: "verify" });
    expect(json(res)).toMatchObject({ success: true, verified: false, error: "DNS not configured: missing TXT record _vercel.co.uk → vc-domain-verify=shop-a.co.uk,abc123" });
    expect(json(res).dnsInstructions).toHaveLength(2);
  });

  it("DNS in place but the platform does not see it yet: verified false", async () => {
    dns.set("_vercel.co.uk", { type: "TXT", data: "vc-domain-verify=shop-a.co.uk,abc123" });
    hosting.ownershipPasses.add("shop-a.co.uk");
    const res = await put(a.session, { domain: "shop-a.co.uk", action: "verify" });
    expect(json(res)).toMatchObject({ success: true, verified: false, error: expect.stringContaining("does not see the domain pointing at it") });
    expect((await rowOf("shop-a.co.uk"))!.verified).toBe(false);
  });

  it("configured DNS: verified true with the platform's config; the list then shows no instructions", async () => {
    hosting.dnsConfig.set("shop-a.co.uk", { configuredBy: "A", misconfigured: false });
    const res = await put(a.session, { domain: "shop-a.co.uk", action: "verify" });
    expect(json(res)).toEqual({ success: true, verified: true, config: { configuredBy: "A", acceptedChallenges: ["dns-01", "http-01"] } });
    expect(await rowOf("shop-a.co.uk")).toMatchObject({ verified: true, challenges: [] });
    const listed = json(await adminCall(t, "GET", "/api/admin/domains", { session: a.session })).domains.find((d: { domain: string }) => d.domain === "shop-a.co.uk");
    expect(listed).toMatchObject({ verified: true, verification: null, dnsInstructions: [] });
    expect((await auditOf("domain.verify", "shop-a.co.uk")).map((r) => r.success)).toContain(true);
  });

  it("a subdomain with its CNAME to the platform verifies without a challenge", async () => {
    dns.set("pay.shop-a.com", { type: "CNAME", domain: `${CNAME}.` });
    hosting.dnsConfig.set("pay.shop-a.com", { configuredBy: "CNAME", misconfigured: false });
    const res = await put(a.session, { domain: "pay.shop-a.com", action: "verify" });
    expect(json(res)).toMatchObject({ success: true, verified: true, config: { configuredBy: "CNAME" } });
  });

  it("answers 404 Domain not found for an unknown domain and for another brand's", async () => {
    for (const domain of ["unknown.example.com", "pay.shop-b.com"]) {
      const res = await put(a.session, { domain, action: "verify" });
      expect(res.statusCode).toBe(404);
      expect(json(res).error).toBe("Domain not found");
    }
    expect((await rowOf("pay.shop-b.com"))!.verified).toBe(false);
  });

  it("answers 400 Domain is required and 400 for an unknown action", async () => {
    expect(json(await put(a.session, { action: "verify" })).error).toBe("Domain is required");
    const res = await put(a.session, { domain: "pay.shop-a.com", action: "destroy" });
    expect(res.statusCode).toBe(400);
    expect(json(res).code).toBe("VALIDATION_ERROR");
  });
});

describe("PUT /api/admin/domains action setPrimary", () => {
  it("keeps one primary per brand", async () => {
    expect((await rowOf("shop-a.co.uk"))!.primary).toBe(true);
    const res = await put(a.session, { domain: "pay.shop-a.com", action: "setPrimary", primary: true });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true });
    const rows = await db().select().from(customDomains).where(eq(customDomains.brandId, a.brandId));
    expect(rows.filter((r) => r.primary).map((r) => r.domain)).toEqual(["pay.shop-a.com"]);
    expect(await auditOf("domain.set_primary", "pay.shop-a.com")).toMatchObject([{ success: true, details: { primary: true } }]);
    await put(a.session, { domain: "pay.shop-a.com", action: "setPrimary", primary: false });
    expect((await rowOf("pay.shop-a.com"))!.primary).toBe(false);
  });
});

describe("serving on a custom domain", () => {
  it("answers the verified domain's brand on GET /api/admin/branding; unknown and unverified hosts get the default brand", async () => {
    const [defaultBrand] = await db().select().from(brands).where(eq(brands.id, DEFAULT_BRAND_ID));
    expect(json(await branding("pay.shop-a.com"))).toEqual({ companyName: "Shop A" });
    expect(json(await branding("SHOP-A.co.uk:443"))).toEqual({ companyName: "Shop A" });
    expect(json(await branding("kasse.xn--bcher-a-n2a.de"))).toEqual({ companyName: defaultBrand!.name });
    expect(json(await branding("unknown.example.org"))).toEqual({ companyName: defaultBrand!.name });
  });

  it("sees a domain verified elsewhere (another process) once the short cache has passed", async () => {
    await add(b.session, { domain: "cached.shop-b.com" });
    const [defaultBrand] = await db().select().from(brands).where(eq(brands.id, DEFAULT_BRAND_ID));
    expect(json(await branding("cached.shop-b.com")).companyName).toBe(defaultBrand!.name);
    await db().update(customDomains).set({ verified: true }).where(eq(customDomains.domain, "cached.shop-b.com"));
    expect(json(await branding("cached.shop-b.com")).companyName).toBe(defaultBrand!.name);
    t.clock.advance(HOST_CACHE_MS);
    expect(json(await branding("cached.shop-b.com")).companyName).toBe("Shop B");
  });
});

describe("DELETE /api/admin/domains", () => {
  it("answers 404 for another brand's domain and leaves it", async () => {
    const res = await adminCall(t, "DELETE", "/api/admin/domains?domain=pay.shop-b.com", { session: a.session });
    expect(res.statusCode).toBe(404);
    expect(json(res).error).toBe("Domain not found");
    expect(await rowOf("pay.shop-b.com")).toBeDefined();
    expect(hosting.domains.has("pay.shop-b.com")).toBe(true);
  });

  it("answers 400 Domain is required without the query", async () => {
    const res = await adminCall(t, "DELETE", "/api/admin/domains", { session: a.session });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Domain is required");
  });

  it("removes the domain from the platform and the brand; its host falls back to the default brand at once", async () => {
    const res = await adminCall(t, "DELETE", "/api/admin/domains?domain=pay.shop-a.com", { session: a.session });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true });
    expect(await rowOf("pay.shop-a.com")).toBeUndefined();
    expect(hosting.domains.has("pay.shop-a.com")).toBe(false);
    expect(await auditOf("domain.remove", "pay.shop-a.com")).toMatchObject([{ success: true, actorId: a.userId }]);
    expect(json(await branding("pay.shop-a.com")).companyName).not.toBe("Shop A");
    expect((await adminCall(t, "DELETE", "/api/admin/domains?domain=pay.shop-a.com", { session: a.session })).statusCode).toBe(404);
  });
});

describe("a hosting platform that does not answer", () => {
  it("answers 502 once the (injected) timeout passes, storing nothing", async () => {
    const slow = await buildTestApp({ env: { ...hostingEnv(hosting), DNS_SERVERS: dns.server, INTEGRATION_TIMEOUT_MS: "300" } });
    hosting.failWith = "hang";
    try {
      const owner = await registerOwner(slow, "Slow hosting");
      const res = await adminCall(slow, "POST", "/api/admin/domains", { session: owner.session, body: { domain: "slow.example.com" } });
      expect(res.statusCode).toBe(502);
      expect(json(res)).toMatchObject({ error: "Hosting platform request failed", details: "timed out" });
      expect(await slow.deps.database.db.select().from(customDomains)).toEqual([]);
    } finally {
      hosting.failWith = null;
      await slow.close();
    }
  });
});

describe("hosting platform not configured", () => {
  it("answers 400 naming the missing variables; the list carries success: false and domains: []", async () => {
    const bare = await buildTestApp({ env: { HOSTING_API_URL: hosting.baseUrl } });
    try {
      const owner = await registerOwner(bare, "No hosting");
      const list = await adminCall(bare, "GET", "/api/admin/domains", { session: owner.session });
      expect(list.statusCode).toBe(400);
      expect(json(list)).toMatchObject({ success: false, domains: [], error: "Hosting platform not configured: missing HOSTING_API_TOKEN, HOSTING_PROJECT_ID" });
      const added = await adminCall(bare, "POST", "/api/admin/domains", { session: owner.session, body: { domain: "pay.example.com" } });
      expect(added.statusCode).toBe(400);
      expect(json(added).error).toContain("HOSTING_API_TOKEN");
      expect(await bare.deps.database.db.select().from(customDomains)).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
