// The audit list names actors and resources (issue 18 item 18): names of the organization's own
// things, a removed user keeps only its id, another organization's names never appear.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { adminCall, addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { auditLogs } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

let t: TestApp;
let a: Registered;
let b: Registered;

beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Names A", name: "Alice Owner" });
  b = await registerOwner(t, { orgName: "Names B", name: "Bob Stranger" });
});
afterAll(() => t.close());

const logsOf = async (session: string, query = "limit=100") => json(await adminCall(t, "GET", `/api/admin/audit-logs?${query}`, { session })).logs as any[];

describe("audit log names", () => {
  it("shows the acting user's name and email and the resource's name", async () => {
    expect((await adminCall(t, "PUT", `/api/admin/brands/${a.brandId}`, { session: a.session, body: { name: "Alice's Boutique" } })).statusCode).toBe(200);
    const rename = (await logsOf(a.session, "action=brand.update"))[0];
    expect(rename).toMatchObject({ actorId: a.userId, actorName: `Alice Owner (${a.email.toLowerCase()})`, resourceId: a.brandId, resourceName: "Alice's Boutique" });
    // A system record has no actor name.
    const register = (await logsOf(a.session, "action=user.register"))[0];
    expect(register.actorName).toBe(`Alice Owner (${a.email.toLowerCase()})`);
  });

  it("a removed user's records keep the id with a null name", async () => {
    const member = await addUser(t, a.session, "admin");
    const created = (await logsOf(a.session, "action=user.create"))[0];
    expect(created).toMatchObject({ resourceId: member.userId, resourceName: `A admin (${member.email})` });
    // The member acts (renames the brand), then is removed.
    expect((await adminCall(t, "PUT", `/api/admin/brands/${a.brandId}`, { session: member.session, body: { name: "Renamed by member" } })).statusCode).toBe(200);
    expect((await adminCall(t, "DELETE", `/api/admin/users/${member.userId}`, { session: a.session })).statusCode).toBe(200);
    const logs = await logsOf(a.session);
    const byMember = logs.find((l) => l.action === "brand.update" && l.actorId === member.userId);
    expect(byMember).toMatchObject({ actorType: "user", actorId: member.userId, actorName: null, resourceName: "Renamed by member" });
    const removal = logs.find((l) => l.action === "user.remove");
    expect(removal).toMatchObject({ resourceId: member.userId, resourceName: null, actorName: `Alice Owner (${a.email.toLowerCase()})` });
    expect(logs.find((l) => l.action === "user.create")).toMatchObject({ resourceId: member.userId, resourceName: null });
  });

  it("never names another organization's user, brand or key", async () => {
    // A record of A that points at B's owner and B's brand (as a cross-organization attempt would).
    await t.deps.database.db.insert(auditLogs).values({
      id: newId("aud"),
      organizationId: a.organizationId,
      brandId: a.brandId,
      actorType: "user",
      actorId: b.userId,
      action: "brand.switch",
      resourceType: "brand",
      resourceId: b.brandId,
      success: false,
      createdAt: new Date(),
    });
    const record = (await logsOf(a.session, "action=brand.switch&success=false"))[0];
    expect(record).toMatchObject({ actorId: b.userId, actorName: null, resourceId: b.brandId, resourceName: null });
    const everything = JSON.stringify(await logsOf(a.session));
    expect(everything).not.toContain("Bob Stranger");
    expect(everything).not.toContain("Names B");
    // B sees its own names.
    expect((await logsOf(b.session, "action=user.register"))[0].actorName).toBe(`Bob Stranger (${b.email.toLowerCase()})`);
  });
});
