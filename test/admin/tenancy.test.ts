// Two organizations: every administration route of organization A, called with organization B's
// owner session and A's ids, answers 404 (or a list without A's data) and changes nothing.
// Table-driven: other administration parts add their rows to `routes`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { addUser, adminCall, registerOwner, type Method } from "../support/admin.js";
import { PASSWORD, uniqueEmail } from "../support/identity.js";
import { completeCheckoutViaApi } from "../support/completed-checkout.js";
import {
  brandAccess,
  brands,
  commissions,
  customDomains,
  listMappings,
  memberships,
  orders,
  organizations,
  paymentLinks,
  providerSettings,
  routingRuleVersions,
  salespeople,
  sessions,
  users,
  webhookDeliveries,
  webhookEndpoints,
} from "../../src/db/schema/index.js";
import { hostingEnv, startFakeHosting, type FakeHosting } from "../../src/domains/fake-hosting.js";
import { startFakeIntegrations, type FakeIntegrations } from "../../src/marketing/fake-integrations.js";

/** Organization A's ids, arranged through the API. */
interface Fixture {
  orgId: string;
  deletedOrgId: string;
  ownerId: string;
  memberId: string;
  brandId: string;
  spareBrandId: string;
  deletedBrandId: string;
  salespersonId: string;
  commissionId: string;
  orderId: string;
  /** A non-secret settings value of A's brand: B's settings must not show it. */
  publishableKey: string;
  /** A custom domain of A's brand. */
  domain: string;
  /** A display name A gave to one of its email_list_a lists. */
  mappingName: string;
  /** A's webhook endpoint, and one delivery to it. */
  webhookId: string;
  deliveryId: string;
  /** A's lasting payment link (docs/admin.md "Payment links"). */
  paymentLinkId: string;
}

interface Row {
  method: Method;
  url: (a: Fixture) => string;
  body?: (a: Fixture) => unknown;
  /** 404 for an id of A; 409 for a name A holds (answered without A's data); "list" for a listing that must not show anything of A; a function for other answers. */
  expect: 404 | 409 | "list" | ((body: Record<string, any>, a: Fixture) => void);
}

const routes: Row[] = [
  { method: "GET", url: () => "/api/admin/users", expect: "list" },
  { method: "POST", url: () => "/api/admin/users", body: (a) => ({ email: "tenancy-probe@example.com", password: "correct horse battery", name: "Probe", role: "member", brandIds: [a.brandId] }), expect: 404 },
  { method: "GET", url: (a) => `/api/admin/users/${a.ownerId}`, expect: 404 },
  { method: "GET", url: (a) => `/api/admin/users/${a.memberId}`, expect: 404 },
  { method: "PUT", url: (a) => `/api/admin/users/${a.memberId}`, body: () => ({ role: "admin" }), expect: 404 },
  { method: "PUT", url: (a) => `/api/admin/users/${a.ownerId}`, body: () => ({ role: "member" }), expect: 404 },
  { method: "DELETE", url: (a) => `/api/admin/users/${a.memberId}`, expect: 404 },
  { method: "DELETE", url: (a) => `/api/admin/users/${a.ownerId}`, expect: 404 },
  { method: "GET", url: () => "/api/admin/organizations?includeDeleted=true", expect: "list" },
  { method: "DELETE", url: (a) => `/api/admin/organizations/${a.orgId}`, expect: 404 },
  { method: "POST", url: (a) => `/api/admin/organizations/${a.deletedOrgId}/restore`, expect: 404 },
  { method: "GET", url: () => "/api/admin/brands?includeDeleted=true", expect: "list" },
  { method: "DELETE", url: (a) => `/api/admin/brands/${a.spareBrandId}`, expect: 404 },
  { method: "DELETE", url: (a) => `/api/admin/brands/${a.brandId}`, expect: 404 },
  { method: "POST", url: (a) => `/api/admin/brands/${a.deletedBrandId}/restore`, expect: 404 },
  { method: "GET", url: (a) => `/api/admin/audit-logs?organizationId=${a.orgId}`, expect: "list" },
  { method: "GET", url: (a) => `/api/admin/audit-logs?brandId=${a.brandId}&search=${a.ownerId}`, expect: "list" },
  { method: "GET", url: () => "/api/admin/commissions?report=true", expect: "list" },
  {
    method: "POST",
    url: () => "/api/admin/commissions",
    body: (a) => ({ action: "approve", commissionIds: [a.commissionId] }),
    expect: (body, a) => expect(body).toMatchObject({ updated: [], skipped: [{ id: a.commissionId, status: null, reason: "Commission not found" }] }),
  },
  { method: "GET", url: () => "/api/admin/salespeople", expect: "list" },
  { method: "POST", url: () => "/api/admin/tools/generate-link", body: (a) => ({ salespersonId: a.salespersonId, salespersonName: "Probe", commissionRate: 0.1, orderInfo: { productName: "Probe", total: 100, currency: "USD" } }), expect: 404 },
  { method: "GET", url: () => "/api/admin/payment-links", expect: "list" },
  { method: "POST", url: (a) => `/api/admin/payment-links/${a.paymentLinkId}/disable`, expect: 404 },
  { method: "POST", url: () => "/api/admin/payment-links", body: (a) => ({ productName: "Probe", price: 100, currency: "USD", salespersonId: a.salespersonId }), expect: 404 },
  { method: "GET", url: () => "/api/admin/settings", expect: "list" },
  { method: "POST", url: () => "/api/admin/crm-retry", body: (a) => ({ orderId: a.orderId }), expect: 404 },
  { method: "GET", url: () => "/api/admin/domains", expect: "list" },
  { method: "POST", url: () => "/api/admin/domains", body: (a) => ({ domain: a.domain }), expect: 409 },
  { method: "PUT", url: () => "/api/admin/domains", body: (a) => ({ domain: a.domain, action: "verify" }), expect: 404 },
  { method: "PUT", url: () => "/api/admin/domains", body: (a) => ({ domain: a.domain, action: "setPrimary", primary: true }), expect: 404 },
  { method: "DELETE", url: (a) => `/api/admin/domains?domain=${a.domain}`, expect: 404 },
  { method: "GET", url: () => "/api/admin/email_list_a/lists", expect: "list" },
  { method: "GET", url: () => "/api/admin/webhooks", expect: "list" },
  { method: "POST", url: (a) => `/api/admin/webhooks/${a.webhookId}/test`, expect: 404 },
  { method: "GET", url: (a) => `/api/admin/webhooks/${a.webhookId}/deliveries`, expect: 404 },
  { method: "POST", url: (a) => `/api/admin/webhooks/deliveries/${a.deliveryId}/resend`, expect: 404 },
  { method: "DELETE", url: (a) => `/api/admin/webhooks/${a.webhookId}`, expect: 404 },
  { method: "GET", url: () => "/api/admin/routing", expect: "list" },
  { method: "GET", url: (a) => `/api/admin/routing?brandId=${a.brandId}`, expect: 404 },
  { method: "GET", url: (a) => `/api/admin/routing/versions/1?brandId=${a.brandId}&livemode=false`, expect: 404 },
  { method: "PUT", url: () => "/api/admin/routing", body: (a) => ({ brandId: a.brandId, livemode: false, rules: [] }), expect: 404 },
];

/** `:name` for every fixture id, for the test names. */
const PLACEHOLDERS = new Proxy({}, { get: (_target, key) => `:${String(key)}` }) as Fixture;

let t: TestApp;
let hosting: FakeHosting;
let integrations: FakeIntegrations;
let a: Fixture;
let bSession: string;

/** The tables the routes above could change, as comparable text. */
async function snapshot(): Promise<string> {
  const db = t.deps.database.db;
  const tables = await Promise.all([
    db.select().from(users).orderBy(users.id),
    db.select().from(memberships).orderBy(memberships.userId, memberships.organizationId),
    db.select().from(brandAccess).orderBy(brandAccess.userId, brandAccess.brandId),
    db.select().from(organizations).orderBy(organizations.id),
    db.select().from(brands).orderBy(brands.id),
    db.select().from(sessions).orderBy(sessions.idHash),
    db.select().from(commissions).orderBy(commissions.id),
    db.select().from(salespeople).orderBy(salespeople.id),
    db.select().from(providerSettings).orderBy(providerSettings.brandId, providerSettings.provider),
    db.select().from(routingRuleVersions).orderBy(routingRuleVersions.brandId, routingRuleVersions.livemode, routingRuleVersions.version),
    db.select().from(orders).orderBy(orders.id),
    db.select().from(customDomains).orderBy(customDomains.id),
    db.select().from(webhookEndpoints).orderBy(webhookEndpoints.id),
    db.select().from(webhookDeliveries).orderBy(webhookDeliveries.id),
    db.select().from(listMappings).orderBy(listMappings.brandId, listMappings.source, listMappings.listId),
    db.select().from(paymentLinks).orderBy(paymentLinks.id),
  ]);
  return JSON.stringify(tables);
}

beforeAll(async () => {
  hosting = await startFakeHosting();
  hosting.needsChallenge.add("pay.tenant-a.com");
  integrations = await startFakeIntegrations();
  integrations.lists.email_list_a = [{ id: "list_1", name: "Newsletter" }];
  // Webhook endpoints on loopback are allowed here: nothing is delivered, A just needs an endpoint.
  t = await buildTestApp({ env: { ...hostingEnv(hosting), ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  const ownerA = await registerOwner(t, "Tenant A");
  const member = await addUser(t, ownerA.session, "member", [ownerA.brandId]);
  const spare = json(await adminCall(t, "POST", "/api/admin/brands", { session: ownerA.session, body: { name: "Spare" } }));
  const deletedBrand = json(await adminCall(t, "POST", "/api/admin/brands", { session: ownerA.session, body: { name: "Deleted" } }));
  expect((await adminCall(t, "DELETE", `/api/admin/brands/${deletedBrand.id}`, { session: ownerA.session })).statusCode).toBe(200);
  const deletedOrg = json(await adminCall(t, "POST", "/api/admin/organizations", { session: ownerA.session, body: { name: "A deleted" } }));
  expect((await adminCall(t, "DELETE", `/api/admin/organizations/${deletedOrg.id}`, { session: ownerA.session })).statusCode).toBe(200);
  const seller = json(
    await adminCall(t, "POST", "/api/admin/salespeople", { session: ownerA.session, body: { name: "Sam Seller", email: uniqueEmail("seller"), password: PASSWORD, commissionRate: 0.1 } }),
  ).salesperson;
  // A's checkout, attributed to A's salesperson: it makes A's order and commission.
  const completed = await completeCheckoutViaApi(t, { claims: { brandId: ownerA.brandId, salesAttribution: { salespersonId: seller.id, commissionRate: 0.1 } } });
  const [commission] = await t.deps.database.db.select().from(commissions).where(eq(commissions.orderId, completed.orderId));
  const webhook = json(await adminCall(t, "POST", "/api/admin/webhooks", { session: ownerA.session, body: { name: "A hook", url: "http://127.0.0.1:9/hook", events: ["*"] } }));
  await t.app.webhookWorker.deliverDue();
  const [delivery] = await t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, webhook.id));
  const publishableKey = "pk_test_tenantA0123456789";
  const configured = await adminCall(t, "POST", "/api/admin/settings", { session: ownerA.session, body: { provider: "intent_gateway", settings: { publishableKey, secretKey: "sk_test_tenantA0123456789" } } });
  expect(configured.statusCode, configured.body).toBe(200);
  expect((await adminCall(t, "POST", "/api/admin/domains", { session: ownerA.session, body: { domain: "pay.tenant-a.com", primary: true } })).statusCode).toBe(200);
  const listSettings = (session: string) => adminCall(t, "POST", "/api/admin/settings", { session, body: { provider: "email_list_a", settings: { apiKey: "tenancy-list-key-1234", baseUrl: integrations.baseUrl } } });
  expect((await listSettings(ownerA.session)).statusCode).toBe(200);
  expect((await adminCall(t, "PUT", "/api/admin/email_list_a/lists", { session: ownerA.session, body: { mappings: { list_1: "Tenant A private name" } } })).statusCode).toBe(200);
  const paymentLink = json(await adminCall(t, "POST", "/api/admin/payment-links", { session: ownerA.session, body: { productName: "A's product", price: 500, currency: "USD" } })).link;
  a = {
    paymentLinkId: paymentLink.id,
    salespersonId: seller.id,
    commissionId: commission!.id,
    orderId: completed.orderId,
    publishableKey,
    orgId: ownerA.organizationId,
    deletedOrgId: deletedOrg.id,
    ownerId: ownerA.userId,
    memberId: member.userId,
    brandId: ownerA.brandId,
    spareBrandId: spare.id,
    deletedBrandId: deletedBrand.id,
    domain: "pay.tenant-a.com",
    mappingName: "Tenant A private name",
    webhookId: webhook.id,
    deliveryId: delivery!.id,
  };
  // A's routing rules (issue 34): B can neither read nor replace them.
  const routing = { livemode: false, rules: [{ id: "rul_tenant_a", name: "Tenant A rule", target: { type: "provider", provider: "vault_gateway_a" } }] };
  expect((await adminCall(t, "PUT", "/api/admin/routing", { session: ownerA.session, body: routing })).statusCode).toBe(200);
  bSession = (await registerOwner(t, "Tenant B")).session;
  expect((await listSettings(bSession)).statusCode).toBe(200);
  // Sanity: the ids are live for their own organization.
  expect((await adminCall(t, "GET", `/api/admin/users/${a.memberId}`, { session: ownerA.session })).statusCode).toBe(200);
  expect((await t.deps.database.db.select().from(brands).where(eq(brands.id, a.spareBrandId)))[0].organizationId).toBe(a.orgId);
});
afterAll(async () => {
  await t.close();
  await hosting.close();
  await integrations.close();
});

describe("tenancy: organization B's session against organization A's ids", () => {
  it.each(routes.map((row) => [`${row.method} ${row.url(PLACEHOLDERS)}`, row] as const))(
    "%s reveals and changes nothing",
    async (_name, row) => {
      const before = await snapshot();
      const res = await adminCall(t, row.method, row.url(a), { session: bSession, body: row.body?.(a) });
      if (row.expect === 404) {
        expect(res.statusCode, res.body).toBe(404);
      } else if (row.expect === 409) {
        expect(res.statusCode, res.body).toBe(409);
        expect(res.body).not.toContain("vc-domain-verify");
        for (const id of Object.values(a)) expect(res.body).not.toContain(id);
      } else {
        expect(res.statusCode, res.body).toBe(200);
        if (row.expect === "list") for (const id of Object.values(a)) expect(res.body).not.toContain(id);
        else row.expect(json(res), a);
      }
      expect(await snapshot()).toBe(before);
    },
  );
});
