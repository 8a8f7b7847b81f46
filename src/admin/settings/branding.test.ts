// Brand styling (not in SPEC; docs/web.md): PUT /api/admin/branding stores the session brand's logo
// and colour in brands.style; GET /api/admin/branding answers them for the host's brand.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { addUser, adminCall, registerOwner, type Registered } from "../../../test/support/admin.js";
import { auditLogs, brands, customDomains, DEFAULT_BRAND_ID } from "../../db/schema/index.js";

let t: TestApp;
let first: Registered;
let second: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  first = await registerOwner(t, "Styled Org"); // the first registration adopts the default brand (CONTRACT §27)
  second = await registerOwner(t, "Other Org");
});
afterAll(() => t.close());

const put = (session: string | undefined, body: unknown) => adminCall(t, "PUT", "/api/admin/branding", { session, body });
const branding = (host?: string) => t.app.inject({ method: "GET", url: "/api/admin/branding", headers: host ? { host } : {} });
const styleOf = async (brandId: string) => (await t.deps.database.db.select({ style: brands.style }).from(brands).where(eq(brands.id, brandId)))[0]!.style;

describe("PUT /api/admin/branding", () => {
  it("stores logo and colour on the session's brand; GET answers them for the host's brand", async () => {
    expect(first.brandId).toBe(DEFAULT_BRAND_ID);
    expect(Object.keys(json(await branding()))).toEqual(["companyName"]);
    const res = await put(first.session, { logoUrl: "https://cdn.example.com/logo.svg", color: "#0F766E" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ success: true, logoUrl: "https://cdn.example.com/logo.svg", color: "#0f766e" });
    expect(await styleOf(first.brandId)).toEqual({ logoUrl: "https://cdn.example.com/logo.svg", color: "#0f766e" });
    const [brand] = await t.deps.database.db.select().from(brands).where(eq(brands.id, DEFAULT_BRAND_ID));
    expect(json(await branding())).toEqual({ companyName: brand!.name, logoUrl: "https://cdn.example.com/logo.svg", color: "#0f766e" });
    const audit = await t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, "brand.style_update"), eq(auditLogs.resourceId, first.brandId)));
    expect(audit).toHaveLength(1);
  });

  it("merges: an omitted key stays, an empty string removes it", async () => {
    expect(json(await put(first.session, { color: "#1d4ed8" }))).toMatchObject({ logoUrl: "https://cdn.example.com/logo.svg", color: "#1d4ed8" });
    const res = await put(first.session, { logoUrl: "" });
    expect(json(res)).not.toHaveProperty("logoUrl");
    expect(await styleOf(first.brandId)).toEqual({ color: "#1d4ed8" });
  });

  it("refuses a colour that is not #rrggbb and a logo that is not an https URL, storing nothing", async () => {
    const before = await styleOf(first.brandId);
    for (const [body, error] of [
      [{ color: "red" }, "Invalid request: color must be #rrggbb"],
      [{ color: "#12345g" }, "Invalid request: color must be #rrggbb"],
      [{ logoUrl: "http://cdn.example.com/logo.png" }, "Invalid request: logoUrl must be an https URL"],
      [{ logoUrl: "javascript:alert(1)" }, "Invalid request: logoUrl must be an https URL"],
      [{ logoUrl: "not a url", color: "#000000" }, "Invalid request: logoUrl must be an https URL"],
    ] as const) {
      const res = await put(first.session, body);
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe(error);
    }
    expect(await styleOf(first.brandId)).toEqual(before);
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await put(undefined, { color: "#000000" })).statusCode).toBe(401);
    const member = await addUser(t, first.session, "member", [first.brandId]);
    const res = await put(member.session, { color: "#000000" });
    expect(res.statusCode).toBe(403);
    expect(await styleOf(first.brandId)).toEqual({ color: "#1d4ed8" });
  });

  it("keeps brands apart: another organization's change touches its own brand only, served on its verified domain", async () => {
    expect((await put(second.session, { color: "#b91c1c", logoUrl: "https://other.example/logo.png" })).statusCode).toBe(200);
    expect(await styleOf(first.brandId)).toEqual({ color: "#1d4ed8" });
    expect(json(await branding())).toMatchObject({ color: "#1d4ed8" });
    await t.deps.database.db.insert(customDomains).values({ id: "dom_branding_test", domain: "pay.other.example", brandId: second.brandId, isRoot: false, verified: true, primary: true, createdAt: new Date(t.clock.now()) });
    expect(json(await branding("pay.other.example"))).toEqual({ companyName: expect.any(String), color: "#b91c1c", logoUrl: "https://other.example/logo.png" });
  });
});

describe("GET /api/admin/brand-look", () => {
  it("answers the session brand's stored name, logo and colour to any role, never another organization's", async () => {
    expect((await put(second.session, { color: "#123456", logoUrl: "https://second.example/logo.png" })).statusCode).toBe(200);
    expect(json(await adminCall(t, "GET", "/api/admin/brand-look", { session: second.session }))).toEqual({ companyName: "Other Org", color: "#123456", logoUrl: "https://second.example/logo.png" });
    const member = await addUser(t, first.session, "member", [first.brandId]);
    const look = await adminCall(t, "GET", "/api/admin/brand-look", { session: member.session });
    expect(look.statusCode, look.body).toBe(200);
    expect(json(look)).toEqual({ companyName: "Styled Org", ...(await styleOf(first.brandId)) });
    expect((await adminCall(t, "GET", "/api/admin/brand-look", {})).statusCode).toBe(401);
  });
});
