// TRUST_PROXY: which peers may name the client in X-Forwarded-For (issue 21 item 1).
import { isIP } from "node:net";

/**
 * `false`: the socket's peer is the client; `true`: every hop is trusted (the left-most address wins:
 * any client can claim any address, so only for a proxy that overwrites the header); a hop count; or
 * the trusted proxies' addresses and CIDR ranges (and proxy-addr's names `loopback`, `linklocal`,
 * `uniquelocal`). The client is the first untrusted address from the right.
 */
export type TrustProxy = boolean | number | string[];

/** Fastify's `trustProxy` option for a TrustProxy (fastify.d.ts: boolean | string | string[] | function). */
export type FastifyTrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

const NAMED_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** Parses TRUST_PROXY; returns an error text for anything Fastify would not take as meant. */
export function parseTrustProxy(raw: string | undefined): TrustProxy | { error: string } {
  const value = (raw ?? "").trim();
  if (value === "" || value === "false" || value === "0") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 10 ? hops : { error: `TRUST_PROXY hop count must be at most 10, got "${raw}"` };
  }
  const entries = value.split(",").map((s) => s.trim());
  for (const entry of entries) {
    if (NAMED_RANGES.has(entry)) continue;
    const [address, prefix, extra] = entry.split("/");
    const family = isIP(address ?? "");
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || extra !== undefined) {
      return {
        error: `TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses or CIDR ranges (127.0.0.1,10.0.0.0/8), got "${entry}"`,
      };
    }
  }
  return entries;
}

/**
 * What Fastify's `trustProxy` gets. A hop count becomes a function: Fastify 5.12 treats a number as
 * "trust nothing" (it cannot tell the proxy from a direct client), so `n` trusts the n nearest hops,
 * the socket's peer first, as Express does. Prefer addresses: with a hop count a client that reaches
 * the instance directly (bypassing the proxy) chooses its address (the start-up warns of HOST).
 */
export function fastifyTrustProxy(trust: TrustProxy): FastifyTrustProxy {
  if (typeof trust === "number") {
    const hops = trust;
    return (_address, hop) => hop < hops;
  }
  return trust;
}

/** The setting as the start-up line names it. */
export function describeTrustProxy(trust: TrustProxy): string {
  if (typeof trust === "number") return `${trust} hop${trust === 1 ? "" : "s"}`;
  return Array.isArray(trust) ? trust.join(",") : String(trust);
}
