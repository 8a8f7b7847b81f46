import type { Config } from "../config/index.js";
import type { DomainChallenge } from "../db/schema/index.js";
import { AppError } from "../lib/errors.js";

/**
 * The hosting platform's project-domains REST API (CONTRACT "Hosting platform"). Every call carries
 * `Authorization: Bearer HOSTING_API_TOKEN` and fails after `integrationTimeoutMs` (10 s by default).
 * Calls made:
 *   POST   /v10/projects/{project}/domains          add a domain          → { name, verified, verification? }
 *   GET    /v9/projects/{project}/domains/{name}    read it (challenges)
 *   POST   /v9/projects/{project}/domains/{name}/verify   ask it to verify → the domain, or 400 when not yet
 *   DELETE /v9/projects/{project}/domains/{name}    remove it (404 counts as removed)
 *   GET    /v6/domains/{name}/config                DNS as the platform sees it
 */
export interface PlatformDomain {
  name: string;
  verified: boolean;
  verification: DomainChallenge[];
}

export interface PlatformDnsConfig {
  configuredBy: "A" | "CNAME" | "http" | null;
  acceptedChallenges: string[];
  misconfigured: boolean;
}

export interface HostingClient {
  /** `taken` when the platform has the name in another project (409 domain_already_in_use). */
  addDomain(name: string): Promise<PlatformDomain | "taken">;
  getDomain(name: string): Promise<PlatformDomain | null>;
  /** `null` when the platform answers that the domain is not verified yet (400). */
  verifyDomain(name: string): Promise<PlatformDomain | null>;
  removeDomain(name: string): Promise<void>;
  getConfig(name: string): Promise<PlatformDnsConfig>;
}

/** The platform failed (unreachable, timeout, unexpected status, unreadable JSON): 502, never its text. */
export class HostingError extends AppError {
  constructor(reason: string) {
    super("HOSTING_ERROR", "Hosting platform request failed", reason);
  }
}

const HOSTING_VARIABLES = [
  ["HOSTING_API_URL", "apiUrl"],
  ["HOSTING_API_TOKEN", "apiToken"],
  ["HOSTING_PROJECT_ID", "projectId"],
] as const;

/** The hosting variables that are unset (SPEC Domains rule 4 names them). */
export function missingHostingVariables(config: Config): string[] {
  return HOSTING_VARIABLES.filter(([, key]) => !config.hosting[key]).map(([name]) => name);
}

function challengesOf(value: unknown): DomainChallenge[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null)
    .filter((c) => typeof c.domain === "string" && typeof c.value === "string")
    .map((c) => ({ type: typeof c.type === "string" ? c.type : "TXT", domain: String(c.domain).toLowerCase(), value: String(c.value), ...(typeof c.reason === "string" ? { reason: c.reason } : {}) }));
}

function domainOf(body: unknown): PlatformDomain {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b.name !== "string" || typeof b.verified !== "boolean") throw new HostingError("unexpected domain body");
  return { name: b.name, verified: b.verified, verification: challengesOf(b.verification) };
}

/** A client for the configured platform; null when a HOSTING_* variable is missing. */
export function createHostingClient(config: Config): HostingClient | null {
  const { apiUrl, apiToken, projectId } = config.hosting;
  if (!apiUrl || !apiToken || !projectId) return null;
  const project = encodeURIComponent(projectId);

  async function request(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiToken}`, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(config.integrationTimeoutMs),
      });
    } catch (error) {
      throw new HostingError(error instanceof Error && error.name === "TimeoutError" ? "timed out" : "unreachable");
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new HostingError("unreadable response");
    }
    let json: unknown = null;
    if (text !== "") {
      try {
        json = JSON.parse(text);
      } catch {
        if (response.ok) throw new HostingError("unreadable JSON");
      }
    }
    return { status: response.status, json };
  }

  const name = (domain: string) => encodeURIComponent(domain);
  const unexpected = (call: string, status: number) => new HostingError(`${call} answered ${status}`);

  return {
    async addDomain(domain) {
      const res = await request("POST", `/v10/projects/${project}/domains`, { name: domain });
      if (res.status === 409) return "taken";
      if (res.status < 200 || res.status >= 300) throw unexpected("add domain", res.status);
      return domainOf(res.json);
    },
    async getDomain(domain) {
      const res = await request("GET", `/v9/projects/${project}/domains/${name(domain)}`);
      if (res.status === 404) return null;
      if (res.status < 200 || res.status >= 300) throw unexpected("get domain", res.status);
      return domainOf(res.json);
    },
    async verifyDomain(domain) {
      const res = await request("POST", `/v9/projects/${project}/domains/${name(domain)}/verify`);
      if (res.status === 400) return null;
      if (res.status < 200 || res.status >= 300) throw unexpected("verify domain", res.status);
      return domainOf(res.json);
    },
    async removeDomain(domain) {
      const res = await request("DELETE", `/v9/projects/${project}/domains/${name(domain)}`);
      if (res.status === 404) return;
      if (res.status < 200 || res.status >= 300) throw unexpected("remove domain", res.status);
    },
    async getConfig(domain) {
      const res = await request("GET", `/v6/domains/${name(domain)}/config`);
      if (res.status < 200 || res.status >= 300) throw unexpected("get config", res.status);
      const b = res.json as Record<string, unknown> | null;
      const configuredBy = b?.configuredBy;
      return {
        configuredBy: configuredBy === "A" || configuredBy === "CNAME" || configuredBy === "http" ? configuredBy : null,
        acceptedChallenges: Array.isArray(b?.acceptedChallenges) ? b.acceptedChallenges.filter((c): c is string => typeof c === "string") : [],
        misconfigured: b?.misconfigured === true,
      };
    },
  };
}
