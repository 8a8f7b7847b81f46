import { Resolver } from "node:dns/promises";
import type { Config } from "../config/index.js";
import type { DomainChallenge } from "../db/schema/index.js";

/** A DNS record the user must create (SPEC Domains DNS rules 1–3). */
export interface ExpectedRecord {
  type: "A" | "CNAME" | "TXT";
  host: string;
  value: string;
}

/** What must point at the platform: A for a root domain, CNAME for a subdomain; plus the platform's TXT challenges. */
export function expectedRecords(domain: { ascii: string; isRoot: boolean }, challenges: readonly DomainChallenge[], hosting: Config["hosting"]): ExpectedRecord[] {
  const pointing: ExpectedRecord = domain.isRoot ? { type: "A", host: domain.ascii, value: hosting.aRecord } : { type: "CNAME", host: domain.ascii, value: hosting.cnameTarget };
  const txt = challenges.filter((c) => c.type.toUpperCase() === "TXT").map((c): ExpectedRecord => ({ type: "TXT", host: c.domain, value: c.value }));
  return [pointing, ...txt];
}

/** `dnsInstructions`: one human-readable line per record, naming its type, host and value. */
export function describeRecord(record: ExpectedRecord): string {
  return record.type === "TXT"
    ? `Add a TXT record for ${record.host} with the value ${record.value}`
    : `Add a${record.type === "A" ? "n" : ""} ${record.type} record for ${record.host} pointing to ${record.value}`;
}

export const instructionsOf = (records: readonly ExpectedRecord[]) => records.map(describeRecord);

/** A resolver on DNS_SERVERS (or the system's), answering within a few seconds. */
export function createResolver(config: Config): Resolver {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (config.dnsServers) resolver.setServers(config.dnsServers);
  return resolver;
}

const normalise = (name: string) => name.toLowerCase().replace(/\.$/, "");
/** Codes that mean "no such record", as opposed to a resolver that failed. */
const ABSENT = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN"]);

async function lookup<T>(query: () => Promise<T[]>): Promise<{ values: T[]; failure?: string }> {
  try {
    return { values: await query() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "ERROR";
    return ABSENT.has(code) ? { values: [] } : { values: [], failure: code };
  }
}

export interface RecordCheck {
  record: ExpectedRecord;
  present: boolean;
  /** The resolver's error code when the lookup itself failed (timeout, refused). */
  failure?: string;
}

/**
 * Looks each expected record up. A subdomain also counts as pointing at the platform with an A record
 * to the platform address (CONTRACT item 33: "its A or CNAME record points at the platform").
 */
export async function checkRecords(resolver: Resolver, records: readonly ExpectedRecord[], hosting: Config["hosting"]): Promise<RecordCheck[]> {
  return Promise.all(
    records.map(async (record): Promise<RecordCheck> => {
      if (record.type === "TXT") {
        const { values, failure } = await lookup(() => resolver.resolveTxt(record.host));
        return { record, present: values.some((chunks) => chunks.join("") === record.value), failure };
      }
      const a = await lookup(() => resolver.resolve4(record.host));
      if (a.values.includes(hosting.aRecord)) return { record, present: true };
      if (record.type === "A") return { record, present: false, failure: a.failure };
      const cname = await lookup(() => resolver.resolveCname(record.host));
      return { record, present: cname.values.some((v) => normalise(v) === record.value), failure: cname.failure ?? a.failure };
    }),
  );
}

/** The `error` of a verify whose DNS is not configured: which records are missing or could not be read. */
export function missingRecordsError(checks: readonly RecordCheck[]): string {
  const parts = checks
    .filter((c) => !c.present)
    .map((c) => `${c.record.type} record ${c.record.host} → ${c.record.value}${c.failure ? ` (lookup failed: ${c.failure})` : ""}`);
  return `DNS not configured: missing ${parts.join("; ")}`;
}
