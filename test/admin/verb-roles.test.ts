// Every administration verb asserts its role itself, and every /api/v1 verb its API key scope: called
// directly (as a worker or another route would, without its route in front) with a caller below its
// role or without its scope, it refuses exactly as its route does and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { buildTestApp, type TestApp } from "../support/app.js";
import { addUser, registerOwner, type Registered } from "../support/admin.js";
import type { Actor, Ctx } from "../../src/ctx.js";
import { auditLogs, brands, type OrganizationRole } from "../../src/db/schema/index.js";
import { createBrand, deleteBrand, listBrands, restoreBrand } from "../../src/admin/brands.js";
import { retryCrm, testCrm } from "../../src/admin/crm/crm.js";
import { getDashboard } from "../../src/admin/dashboard/dashboard.js";
import { generateSalesLink } from "../../src/admin/generate-link.js";
import { createPaymentLink, disablePaymentLink, listPaymentLinks } from "../../src/admin/payment-links.js";
import { createOrganization, deleteOrganization, listOrganizations, restoreOrganization } from "../../src/admin/organizations.js";
import { updateBranding } from "../../src/admin/settings/branding.js";
import { getSettings, updateSettings } from "../../src/admin/settings/settings.js";
import { createUser, getUser, listUsers, removeUser, updateUserRole } from "../../src/admin/users.js";
import { listAuditLogs } from "../../src/audit/list.js";
import { bulkUpdateCommissions } from "../../src/commissions/bulk-update.js";
import { listCommissions } from "../../src/commissions/list.js";
import { addDomain, listDomains, removeDomain, updateDomainAction } from "../../src/domains/domains.js";
import { getLists, updateMappings } from "../../src/marketing/lists.js";
import { getMerchantOrder, getOrder, listMerchantOrders, listOrders } from "../../src/orders/orders.js";
import { refundMerchantOrder, refundOrder } from "../../src/orders/refunds.js";
import { createMerchantCheckout, getMerchantCheckout } from "../../src/merchant-api/checkouts.js";
import { createMerchantUpsellSession, getMerchantPaymentToken } from "../../src/merchant-api/upsell.js";
import { createNamedFunnelSession } from "../../src/upsell/funnel/named-session.js";
import type { ApiKeyScope } from "../../src/db/schema/index.js";
import { eq } from "drizzle-orm";
import { createSalesperson, listSalespeople } from "../../src/salespeople/manage.js";
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, resendDelivery, testEndpoint } from "../../src/webhooks/endpoints.js";
import { getEvent, listEvents, redeliverEvent, triggerEvent } from "../../src/webhooks/events.js";

let t: TestApp;
let owner: Registered;
let memberId: string;
let adminId: string;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerOwner(t, "Verb roles");
  memberId = (await addUser(t, owner.session, "member", [owner.brandId])).userId;
  adminId = (await addUser(t, owner.session, "admin", [owner.brandId])).userId;
});
afterAll(async () => t?.close());

/** The verb context a worker or another route would build: no HTTP request, no guard in front. */
const ctxAs = (actor: Actor): Ctx => ({
  db: t.deps.database.db,
  clock: t.deps.clock,
  log: t.deps.log,
  config: t.deps.config,
  providers: t.deps.providers,
  orchestration: t.deps.orchestration,
  actor,
});

const userOf = (role: OrganizationRole | undefined, id: string): Actor => ({ type: "user", id, organizationId: owner.organizationId, brandId: owner.brandId, role });

type Verb = (ctx: Ctx) => Promise<unknown>;
const worker = () => t.app.webhookWorker;
const page = { page: 1, limit: 20, pageSize: 20 };

/** Each verb with the least role SPEC "Roles" and the endpoint tables give it (as its route enforced before). */
const VERBS: [string, OrganizationRole, Verb][] = [
  ["listUsers", "admin", (ctx) => listUsers({ ctx })],
  ["createUser", "admin", (ctx) => createUser({ ctx, input: { email: "new@example.com", password: "correct horse battery", name: "New", role: "member", brandIds: [] } })],
  ["getUser", "member", (ctx) => getUser({ ctx, input: { userId: memberId } })],
  ["updateUserRole", "admin", (ctx) => updateUserRole({ ctx, input: { userId: memberId, role: "admin" } })],
  ["removeUser", "owner", (ctx) => removeUser({ ctx, input: { userId: memberId } })],
  ["listOrganizations", "owner", (ctx) => listOrganizations({ ctx, input: {} })],
  ["createOrganization", "owner", (ctx) => createOrganization({ ctx, input: { name: "Refused" } })],
  ["deleteOrganization", "member", (ctx) => deleteOrganization({ ctx, input: { organizationId: owner.organizationId } })],
  ["restoreOrganization", "member", (ctx) => restoreOrganization({ ctx, input: { organizationId: owner.organizationId } })],
  ["listBrands", "member", (ctx) => listBrands({ ctx, input: {} })],
  ["createBrand", "admin", (ctx) => createBrand({ ctx, input: { name: "Refused" } })],
  ["deleteBrand", "admin", (ctx) => deleteBrand({ ctx, input: { brandId: owner.brandId } })],
  ["restoreBrand", "admin", (ctx) => restoreBrand({ ctx, input: { brandId: owner.brandId } })],
  ["getSettings", "member", (ctx) => getSettings({ ctx })],
  ["updateSettings", "admin", (ctx) => updateSettings({ ctx, input: { provider: "intent_gateway", settings: { publishableKey: "pk_refused" } } })],
  ["updateBranding", "admin", (ctx) => updateBranding({ ctx, input: { color: "#112233" } })],
  ["testCrm", "admin", (ctx) => testCrm({ ctx, input: { provider: "order_crm_a" } })],
  ["retryCrm", "admin", (ctx) => retryCrm({ ctx, input: { orderId: "ord_1" } })],
  ["getDashboard", "member", (ctx) => getDashboard({ ctx, input: { days: 7, test: false } })],
  ["generateSalesLink", "admin", (ctx) => generateSalesLink({ ctx, input: { salespersonId: "sp_1", orderInfo: { productName: "Thing", total: 100, currency: "USD" } } })],
  ["createPaymentLink", "admin", (ctx) => createPaymentLink({ ctx, input: { productName: "Thing", price: 100, currency: "USD" } })],
  ["listPaymentLinks", "member", (ctx) => listPaymentLinks({ ctx })],
  ["disablePaymentLink", "admin", (ctx) => disablePaymentLink({ ctx, input: { id: "plink_1" } })],
  ["listOrders", "member", (ctx) => listOrders({ ctx, input: { limit: 25 } })],
  ["getOrder", "member", (ctx) => getOrder({ ctx, input: { id: "ord_1" } })],
  ["refundOrder", "admin", (ctx) => refundOrder({ ctx, input: { id: "ord_1", body: { reason: "other" } } })],
  ["listAuditLogs", "admin", (ctx) => listAuditLogs({ ctx, input: { ...page } })],
  ["listCommissions", "member", (ctx) => listCommissions({ ctx, input: { ...page } })],
  ["bulkUpdateCommissions", "admin", (ctx) => bulkUpdateCommissions({ ctx, input: { action: "approve", commissionIds: ["com_1"] } })],
  ["listDomains", "member", (ctx) => listDomains({ ctx })],
  ["addDomain", "admin", (ctx) => addDomain({ ctx, input: { domain: "pay.example.com" } })],
  ["removeDomain", "admin", (ctx) => removeDomain({ ctx, input: { domain: "pay.example.com" } })],
  ["updateDomainAction", "admin", (ctx) => updateDomainAction({ ctx, input: { domain: "pay.example.com", action: "setPrimary" } })],
  ["getLists", "member", (ctx) => getLists({ ctx, source: "email_list_a" })],
  ["updateMappings", "admin", (ctx) => updateMappings({ ctx, source: "email_list_a", input: { mappings: { l1: "Refused" } } })],
  ["createSalesperson", "admin", (ctx) => createSalesperson({ ctx, input: { name: "Sam", email: "sam@example.com", password: "correct horse battery" } })],
  ["listSalespeople", "admin", (ctx) => listSalespeople({ ctx })],
  ["listEndpoints", "member", (ctx) => listEndpoints({ ctx })],
  ["createEndpoint", "admin", (ctx) => createEndpoint({ ctx, input: { url: "https://hooks.example.com/in" } })],
  ["testEndpoint", "admin", (ctx) => testEndpoint({ ctx, input: { id: "whe_1" }, worker: worker() })],
  ["deleteEndpoint", "admin", (ctx) => deleteEndpoint({ ctx, input: { id: "whe_1" } })],
  ["listDeliveries", "member", (ctx) => listDeliveries({ ctx, input: { id: "whe_1", query: { ...page } } })],
  ["resendDelivery", "admin", (ctx) => resendDelivery({ ctx, input: { deliveryId: "whd_1" }, worker: worker() })],
];

/** The role just below `least`, with a user of the organization who holds it. */
const BELOW: Partial<Record<OrganizationRole, () => Actor>> = {
  admin: () => userOf("member", memberId),
  owner: () => userOf("admin", adminId),
};

const stored = async () => ({
  audit: (await t.deps.database.db.select({ n: count() }).from(auditLogs))[0]!.n,
  brands: (await t.deps.database.db.select({ n: count() }).from(brands))[0]!.n,
});

describe("administration verbs called directly", () => {
  it.each(VERBS)("%s refuses an anonymous caller with 401 Unauthorized", async (_name, _least, verb) => {
    await expect(verb(ctxAs({ type: "anonymous" }))).rejects.toMatchObject({ code: "UNAUTHORIZED", message: "Unauthorized" });
  });

  it.each(VERBS)("%s refuses a user without an organization with NO_ORGANIZATION", async (_name, _least, verb) => {
    await expect(verb(ctxAs({ type: "user", id: adminId }))).rejects.toMatchObject({ code: "NO_ORGANIZATION" });
  });

  it.each(VERBS)("%s refuses callers that hold no organization role (salesperson, system)", async (_name, _least, verb) => {
    for (const type of ["salesperson", "system"] as const) {
      await expect(verb(ctxAs({ type, id: "sp_1", organizationId: owner.organizationId, brandId: owner.brandId, role: "owner" }))).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });

  it.each(VERBS.filter(([, least]) => least !== "member"))("%s refuses the role below %s with 403", async (_name, least, verb) => {
    await expect(verb(ctxAs(BELOW[least]!()))).rejects.toMatchObject({ code: "FORBIDDEN", message: "Your role does not allow this" });
  });

  it("refused calls change nothing: no audit record, no brand", async () => {
    const before = await stored();
    for (const [, least, verb] of VERBS) {
      await verb(ctxAs({ type: "anonymous" })).catch(() => undefined);
      if (BELOW[least]) await verb(ctxAs(BELOW[least]())).catch(() => undefined);
    }
    expect(await stored()).toEqual(before);
  });
});

/** Each `/api/v1` verb with the scopes its route documents (the first is named when none is held). */
const KEY_VERBS: [string, ApiKeyScope[], Verb][] = [
  ["createMerchantCheckout", ["checkouts:write"], (ctx) => createMerchantCheckout({ ctx, input: { orderId: "v-1", amount: 100, currency: "USD", productName: "Thing" } as never })],
  ["getMerchantCheckout", ["checkouts:write", "orders:read"], (ctx) => getMerchantCheckout({ ctx, input: { id: "mco_1" } })],
  ["createNamedFunnelSession", ["upsell:write"], (ctx) => createNamedFunnelSession({ ctx, input: { originalOrderId: "ord_1", funnelId: "fun_1" } })],
  ["createMerchantUpsellSession", ["upsell:write"], (ctx) => createMerchantUpsellSession({ ctx, input: { originalOrderId: "ord_1", customerEmail: "a@example.com", provider: "vault_gateway_a", offers: [] } as never })],
  ["getMerchantPaymentToken", ["upsell:write"], (ctx) => getMerchantPaymentToken({ ctx, input: { provider: "vault_gateway_a", transactionId: "tx_1" } })],
  ["listMerchantOrders", ["orders:read"], (ctx) => listMerchantOrders({ ctx, input: { limit: 25 } })],
  ["getMerchantOrder", ["orders:read"], (ctx) => getMerchantOrder({ ctx, input: { orderId: "ord_1" } })],
  ["refundMerchantOrder", ["orders:refund"], (ctx) => refundMerchantOrder({ ctx, input: { orderId: "ord_1", body: { reason: "other" } } })],
  ["listEvents", ["events:read"], (ctx) => listEvents({ ctx, input: { query: {} } })],
  ["getEvent", ["events:read"], (ctx) => getEvent({ ctx, input: { id: "evt_1" } })],
  // The scope is checked before the worker is touched.
  ["redeliverEvent", ["webhooks:write"], (ctx) => redeliverEvent({ ctx, input: { id: "evt_1", body: { endpointId: "whe_1" } }, worker: undefined as never })],
  ["triggerEvent", ["webhooks:write"], (ctx) => triggerEvent({ ctx, input: { type: "order.confirmed" } })],
];

const ALL_SCOPES: ApiKeyScope[] = ["checkouts:write", "orders:read", "orders:refund", "upsell:write", "events:read", "webhooks:write"];
const keyWith = (scopes: ApiKeyScope[]): Actor => ({ type: "api", id: "key_verbs", organizationId: owner.organizationId, brandId: owner.brandId, scopes, livemode: false } as Actor);

describe("/api/v1 verbs called directly", () => {
  it.each(KEY_VERBS)("%s refuses any caller but an API key with 401 API key required", async (_name, _scopes, verb) => {
    for (const actor of [{ type: "anonymous" }, userOf("owner", owner.userId)] as Actor[]) {
      await expect(verb(ctxAs(actor))).rejects.toMatchObject({ code: "UNAUTHORIZED", message: "API key required" });
    }
  });

  it.each(KEY_VERBS)("%s refuses a key without its scope (%s) with 403, audited", async (_name, scopes, verb) => {
    const refusals = () => t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.action, "api_key.refused"));
    const before = (await refusals()).length;
    await expect(verb(ctxAs(keyWith(ALL_SCOPES.filter((scope) => !scopes.includes(scope)))))).rejects.toMatchObject({ code: "FORBIDDEN", message: `API key lacks scope ${scopes[0]}` });
    const after = await refusals();
    expect(after).toHaveLength(before + 1);
    expect(after).toContainEqual(expect.objectContaining({ actorType: "api", actorId: "key_verbs", brandId: owner.brandId, success: false, details: { reason: "missing_scope", scope: scopes[0] } }));
  });

  it("an administration verb refuses an API key (it holds no organization role)", async () => {
    await expect(listOrders({ ctx: ctxAs(keyWith(ALL_SCOPES)), input: { limit: 25 } })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
