import type { Ctx } from "../ctx.js";
import type { Config } from "../config/index.js";
import type { DomainChallenge } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { recordAudit } from "../audit/record.js";
import { assertRole, brandOfScope, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { AppError, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { checkRecords, createResolver, expectedRecords, instructionsOf, missingRecordsError } from "./dns.js";
import { parseDomainName, type DomainName } from "./domain-name.js";
import { forgetHost } from "./host-brand.js";
import { createHostingClient, missingHostingVariables, type HostingClient } from "./hosting-client.js";
import { clearOtherPrimaries, deleteDomain, findBrandDomain, findDomain, insertDomain, listBrandDomains, updateDomain, type DomainRow } from "./store.js";
import type { AddDomainBody, DomainView, DomainsReply, UpdateDomainBody, VerifyReply } from "./schemas.js";

const domainNotFound = () => notFound("Domain not found");

/** SPEC Domains rule 5: the existing domain's verification and instructions come along (status 409, docs/domains.md). */
const domainExists = (view: Pick<DomainView, "verification" | "dnsInstructions">, details?: string) =>
  new AppError("DOMAIN_EXISTS", "Domain already exists", details, { success: false, verification: view.verification, dnsInstructions: view.dnsInstructions });

/** The 400 of SPEC's error table, naming the missing HOSTING_* variables (rule 4's body on the list). */
function requireHosting(config: Config, extra: Record<string, unknown> = {}): HostingClient {
  const client = createHostingClient(config);
  if (client) return client;
  const missing = missingHostingVariables(config);
  throw new AppError("HOSTING_NOT_CONFIGURED", `Hosting platform not configured: missing ${missing.join(", ")}`, undefined, { success: false, ...extra });
}

const nameOf = (row: DomainRow): DomainName => ({ ascii: row.domain, isRoot: row.isRoot });

/** SPEC "Domain": `verification` is the first TXT challenge, null when verified; `dnsInstructions` empty when verified. */
export function domainView(row: DomainRow, hosting: Config["hosting"]): DomainView {
  const txt = row.challenges.find((c) => c.type.toUpperCase() === "TXT");
  return {
    domain: row.domain,
    brandId: row.brandId,
    verified: row.verified,
    primary: row.primary,
    createdAt: row.createdAt.getTime(),
    verification: row.verified || !txt ? null : { type: "TXT", domain: txt.domain, value: txt.value },
    dnsInstructions: row.verified ? [] : instructionsOf(expectedRecords(nameOf(row), row.challenges, hosting)),
  };
}

/** Where a change of the session's brand is recorded. */
const auditScope = (scope: CallerScope, brandId: string) => ({ organizationId: scope.organizationId, brandId });

/** GET /api/admin/domains */
export async function listDomains({ ctx }: { ctx: Ctx }): Promise<DomainsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  requireHosting(ctx.config, { domains: [], configured: false });
  const rows = await listBrandDomains(ctx.db, brandId);
  return { success: true, domains: rows.map((r) => domainView(r, ctx.config.hosting)), configured: true };
}

/** POST /api/admin/domains: adds the domain to the platform's project, then stores it for the brand. */
export async function addDomain({ ctx, input }: { ctx: Ctx; input: AddDomainBody }): Promise<{ success: true; domain: DomainView }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const hosting = requireHosting(ctx.config);
  // CONTRACT §40: an Idempotency-Key names one domain of the brand; a repeat answers it, not "exists".
  const effect = ofBrand(brandId, "domain");
  return oncePerKey(ctx, effect, {
    answer: async (domain) => {
      const row = await findBrandDomain(ctx.db, brandId, domain);
      if (!row) throw keyAlreadyUsed("domain", domain, "it was removed since");
      return { success: true, domain: domainView(row, ctx.config.hosting) };
    },
    make: () => makeDomain(ctx, scope, brandId, hosting, input, effect),
  });
}

async function makeDomain(ctx: Ctx, scope: CallerScope, brandId: string, hosting: HostingClient, input: AddDomainBody, effect: EffectOf): Promise<{ success: true; domain: DomainView }> {
  const name = parseDomainName(input.domain);

  const existing = await findDomain(ctx.db, name.ascii);
  if (existing) throw existingDomainError(existing, brandId, ctx.config);

  let platform = await hosting.addDomain(name.ascii);
  if (platform === "taken") {
    // Taken by our own project (left from an earlier attempt) is ours to use; taken elsewhere is not.
    const own = await hosting.getDomain(name.ascii);
    if (!own) throw domainExists({ verification: null, dnsInstructions: [] }, "The hosting platform has this domain in another project");
    platform = own;
  }
  const challenges: DomainChallenge[] = platform.verified ? [] : platform.verification;
  const now = new Date(ctx.clock.now());

  const row = await withTransaction(ctx.db, async (tx) => {
    const id = newId("dom");
    if (input.primary) await clearOtherPrimaries(tx, brandId, null);
    const inserted = await insertDomain(tx, { id, brandId, domain: name.ascii, isRoot: name.isRoot, verified: false, primary: input.primary === true, challenges, createdAt: now });
    if (!inserted) return null;
    await bindResource(tx, ctx, effect, name.ascii);
    await recordAudit(tx, ctx, { action: "domain.add", resourceType: "domain", resourceId: name.ascii, success: true, ...auditScope(scope, brandId), details: { domain: name.ascii, primary: inserted.primary, root: name.isRoot } });
    return inserted;
  });
  if (!row) {
    // A concurrent add of the same name won the unique index.
    const winner = await findDomain(ctx.db, name.ascii);
    throw winner ? existingDomainError(winner, brandId, ctx.config) : domainExists({ verification: null, dnsInstructions: [] });
  }
  return { success: true, domain: domainView(row, ctx.config.hosting) };
}

/** Our own brand's existing domain shows its records; another brand's shows nothing of it. */
function existingDomainError(existing: DomainRow, brandId: string, config: Config): AppError {
  return existing.brandId === brandId ? domainExists(domainView(existing, config.hosting)) : domainExists({ verification: null, dnsInstructions: [] });
}

/** Parses and finds the brand's domain: 400 for a missing or malformed name, 404 for another brand's or an unknown one. */
async function brandDomain(ctx: Ctx, brandId: string, domain: unknown): Promise<DomainRow> {
  const name = parseDomainName(domain);
  const row = await findBrandDomain(ctx.db, brandId, name.ascii);
  if (!row) throw domainNotFound();
  return row;
}

/** DELETE /api/admin/domains?domain=: removes it from the platform, then from the brand. */
export async function removeDomain({ ctx, input }: { ctx: Ctx; input: { domain?: string } }): Promise<{ success: true }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const hosting = requireHosting(ctx.config);
  const row = await brandDomain(ctx, brandId, input.domain);
  await hosting.removeDomain(row.domain);
  await withTransaction(ctx.db, async (tx) => {
    await deleteDomain(tx, row.id);
    await recordAudit(tx, ctx, { action: "domain.remove", resourceType: "domain", resourceId: row.domain, success: true, ...auditScope(scope, brandId), details: { domain: row.domain, wasVerified: row.verified, wasPrimary: row.primary } });
  });
  forgetHost(ctx.db, row.domain);
  return { success: true };
}

/** PUT /api/admin/domains: `verify` or `setPrimary`. */
export async function updateDomainAction({ ctx, input }: { ctx: Ctx; input: UpdateDomainBody }): Promise<VerifyReply | { success: true }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const hosting = requireHosting(ctx.config);
  const row = await brandDomain(ctx, brandId, input.domain);
  if (input.action === "setPrimary") return setPrimary(ctx, scope, brandId, row, input.primary !== false);
  return verifyDomain(ctx, scope, brandId, row, hosting);
}

async function setPrimary(ctx: Ctx, scope: CallerScope, brandId: string, row: DomainRow, primary: boolean): Promise<{ success: true }> {
  await withTransaction(ctx.db, async (tx) => {
    if (primary) await clearOtherPrimaries(tx, brandId, row.id);
    await updateDomain(tx, row.id, { primary });
    await recordAudit(tx, ctx, { action: "domain.set_primary", resourceType: "domain", resourceId: row.domain, success: true, ...auditScope(scope, brandId), details: { domain: row.domain, primary } });
  });
  return { success: true };
}

/**
 * Verify: our own DNS lookups first, so the answer names the missing record; then the platform's
 * ownership check and its view of the DNS. Verified only when all hold (CONTRACT item 33).
 */
async function verifyDomain(ctx: Ctx, scope: CallerScope, brandId: string, row: DomainRow, hosting: HostingClient): Promise<VerifyReply> {
  const hostingConfig = ctx.config.hosting;
  if (row.verified) {
    const config = await hosting.getConfig(row.domain);
    return { success: true, verified: true, config: { configuredBy: config.configuredBy, acceptedChallenges: config.acceptedChallenges } };
  }

  let platform = await hosting.getDomain(row.domain);
  if (!platform) {
    const added = await hosting.addDomain(row.domain);
    platform = added === "taken" ? null : added;
  }
  const challenges = platform && !platform.verified ? platform.verification : row.challenges;
  const records = expectedRecords(nameOf(row), platform?.verified ? [] : challenges, hostingConfig);
  const dnsInstructions = instructionsOf(records);

  const notVerified = async (error: string, reason: string): Promise<VerifyReply> => {
    await withTransaction(ctx.db, async (tx) => {
      if (JSON.stringify(challenges) !== JSON.stringify(row.challenges)) await updateDomain(tx, row.id, { challenges });
      await recordAudit(tx, ctx, { action: "domain.verify", resourceType: "domain", resourceId: row.domain, success: false, ...auditScope(scope, brandId), details: { domain: row.domain, reason } });
    });
    return { success: true, verified: false, error, dnsInstructions };
  };

  if (!platform) return notVerified("The hosting platform has this domain in another project", "taken");

  const checks = await checkRecords(createResolver(ctx.config), records, hostingConfig);
  if (checks.some((c) => !c.present)) return notVerified(missingRecordsError(checks), "dns");

  if (!platform.verified) {
    const verified = await hosting.verifyDomain(row.domain);
    if (!verified?.verified) return notVerified("The hosting platform has not verified the domain yet; DNS changes can take a while to be seen", "platform");
  }
  const config = await hosting.getConfig(row.domain);
  if (config.misconfigured || config.configuredBy === null) {
    return notVerified("The hosting platform does not see the domain pointing at it yet; DNS changes can take a while to be seen", "misconfigured");
  }

  await withTransaction(ctx.db, async (tx) => {
    await updateDomain(tx, row.id, { verified: true, challenges: [], verifiedAt: new Date(ctx.clock.now()) });
    await recordAudit(tx, ctx, { action: "domain.verify", resourceType: "domain", resourceId: row.domain, success: true, ...auditScope(scope, brandId), details: { domain: row.domain, configuredBy: config.configuredBy } });
  });
  forgetHost(ctx.db, row.domain);
  return { success: true, verified: true, config: { configuredBy: config.configuredBy, acceptedChallenges: config.acceptedChallenges } };
}
