import type { ServerResponse } from "node:http";
import { sendJson, startHttpFake, type FakeRequest } from "../lib/testing/fake-http.js";

/**
 * Test support: a fake hosting platform speaking CONTRACT's project-domains API on 127.0.0.1. It
 * keeps the project's domains, records every request, and is steered by the test: which domains
 * need a TXT challenge, whether the platform's own check passes, how it sees the DNS.
 */
export interface FakeHostingDomain {
  name: string;
  verified: boolean;
  verification: { type: string; domain: string; value: string; reason: string }[];
}

export interface FakeHosting {
  baseUrl: string;
  token: string;
  projectId: string;
  requests: FakeRequest[];
  domains: Map<string, FakeHostingDomain>;
  /** Names another project holds: adding them answers 409 domain_already_in_use. */
  takenElsewhere: Set<string>;
  /** Names whose add answers a TXT challenge (value `vc-domain-verify=<name>,<token>`). */
  needsChallenge: Set<string>;
  /** Names whose verify passes (the platform saw the TXT record). */
  ownershipPasses: Set<string>;
  /** The DNS configuration the platform reports per name; default `{ configuredBy: null, misconfigured: true }`. */
  dnsConfig: Map<string, { configuredBy: "A" | "CNAME" | "http" | null; misconfigured: boolean }>;
  /** Answer every request with this status (platform outage), or never answer (`hang`). */
  failWith: number | "hang" | null;
  close(): Promise<void>;
}

export async function startFakeHosting(options: { token?: string; projectId?: string } = {}): Promise<FakeHosting> {
  const token = options.token ?? "hosting-token-test";
  const projectId = options.projectId ?? "prj_test";
  const state: Omit<FakeHosting, "baseUrl" | "close"> = {
    token,
    projectId,
    requests: [],
    domains: new Map(),
    takenElsewhere: new Set(),
    needsChallenge: new Set(),
    ownershipPasses: new Set(),
    dnsConfig: new Map(),
    failWith: null,
  };
  const project = `/projects/${projectId}/domains`;
  const hanging: ServerResponse[] = [];
  const server = await startHttpFake((request, response) => {
    state.requests.push(request);
    if (request.headers.authorization !== `Bearer ${token}`) return sendJson(response, 403, { error: { code: "forbidden", message: "Not authorized" } });
    if (state.failWith === "hang") return void hanging.push(response);
    if (state.failWith) return sendJson(response, state.failWith, { error: { code: "internal_server_error" } });
    const path = request.path.split("?")[0]!;
    let m: RegExpExecArray | null;
    if (request.method === "POST" && path === `/v10${project}`) {
      const name = String(JSON.parse(request.body || "{}").name ?? "");
      if (state.takenElsewhere.has(name) || state.domains.has(name)) return sendJson(response, 409, { error: { code: "domain_already_in_use", message: "taken" } });
      const challenge = state.needsChallenge.has(name);
      const apex = name.split(".").slice(-2).join(".");
      const domain: FakeHostingDomain = {
        name,
        verified: !challenge,
        verification: challenge ? [{ type: "TXT", domain: `_vercel.${apex}`, value: `vc-domain-verify=${name},abc123`, reason: "pending_domain_verification" }] : [],
      };
      state.domains.set(name, domain);
      return sendJson(response, 200, domain);
    }
    if ((m = new RegExp(`^/v9${project}/([^/]+)/verify$`).exec(path)) && request.method === "POST") {
      const domain = state.domains.get(decodeURIComponent(m[1]!));
      if (!domain) return sendJson(response, 404, { error: { code: "not_found" } });
      if (!domain.verified && !state.ownershipPasses.has(domain.name)) return sendJson(response, 400, { error: { code: "missing_txt_record", message: "TXT record not found" } });
      domain.verified = true;
      domain.verification = [];
      return sendJson(response, 200, domain);
    }
    if ((m = new RegExp(`^/v9${project}/([^/]+)$`).exec(path))) {
      const name = decodeURIComponent(m[1]!);
      const domain = state.domains.get(name);
      if (!domain) return sendJson(response, 404, { error: { code: "not_found" } });
      if (request.method === "GET") return sendJson(response, 200, domain);
      if (request.method === "DELETE") {
        state.domains.delete(name);
        return sendJson(response, 200, {});
      }
    }
    if ((m = /^\/v6\/domains\/([^/]+)\/config$/.exec(path)) && request.method === "GET") {
      const name = decodeURIComponent(m[1]!);
      const config = state.dnsConfig.get(name) ?? { configuredBy: null, misconfigured: true };
      return sendJson(response, 200, { ...config, acceptedChallenges: config.configuredBy ? ["dns-01", "http-01"] : [] });
    }
    sendJson(response, 404, { error: { code: "not_found", message: `${request.method} ${path}` } });
  });
  const close = async () => {
    for (const response of hanging.splice(0)) response.destroy();
    await server.close();
  };
  return Object.assign(state, { baseUrl: server.baseUrl, close });
}

/** The environment that points the app at the fake. */
export const hostingEnv = (fake: FakeHosting): Record<string, string> => ({ HOSTING_API_URL: fake.baseUrl, HOSTING_API_TOKEN: fake.token, HOSTING_PROJECT_ID: fake.projectId });
