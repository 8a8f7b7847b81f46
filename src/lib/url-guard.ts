import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * SSRF guard for every outgoing URL we do not choose ourselves: webhook endpoints and the `baseUrl`
 * (or shop domain) of provider and integration settings (CONTRACT §14, §36; docs/webhooks.md "URL
 * guard"). A URL must be http(s); its host is resolved and every address checked, when it is saved
 * and again on every connection (the check runs inside the socket's DNS lookup, so the address
 * connected to is the address checked: DNS rebinding cannot slip a private address in between).
 * `ALLOW_PRIVATE_WEBHOOK_URLS=true` lifts the check (tests reach their fakes on 127.0.0.1 with it).
 */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (also some clouds' metadata, 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, incl. the 169.254.169.254 metadata service
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT); plain IPv4-mapped addresses are judged by their IPv4 address
  ["64:ff9b::", 96], // NAT64: reaches IPv4 addresses we cannot check
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking 2001:2::/48, ORCHID
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: carries an IPv4 address we cannot check
  ["3fff::", 20], // documentation (RFC 9637)
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local (incl. fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address an IPv4-mapped IPv6 address carries, else null. */
function mappedIpv4(address: string): string | null {
  let canonical: string;
  try {
    // URL parsing writes every form (0:0:0:0:0:ffff:127.0.0.1, ::FFFF:127.0.0.1) as ::ffff:7f00:1.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!hex) return null;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Why `address` may not be connected to, or null when it may. */
export function refusalOf(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d, or ::ffff:7f00:1 as URL parsing writes it): judge the IPv4 address it carries.
    const mapped = mappedIpv4(address);
    if (mapped) return refusalOf(mapped) && `${address} maps to ${refusalOf(mapped)}`;
  }
  return REFUSED.check(address, family === 4 ? "ipv4" : "ipv6") ? `${address} is a private, loopback, link-local, documentation, multicast or reserved address` : null;
}

export class UrlRefused extends Error {}

/** Parses and checks the form of an outgoing URL (http or https, a host); throws UrlRefused. */
export function parseOutgoingUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused("not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UrlRefused("only http and https URLs are allowed");
  if (!url.hostname) throw new UrlRefused("the URL has no host");
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

/** The creation-time check: the URL's form, then every address its host resolves to. Throws UrlRefused. */
export async function checkOutgoingUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseOutgoingUrl(raw);
  if (allowPrivate) return url;
  const host = hostOf(url);
  if (isIP(host)) {
    const refusal = refusalOf(host);
    if (refusal) throw new UrlRefused(refusal);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw new UrlRefused(`${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const refusal = refusalOf(address);
    if (refusal) throw new UrlRefused(`${host} resolves to ${refusal}`);
  }
  return url;
}

/**
 * A DNS lookup for http.request that refuses the connection when any address of the name is
 * refused: the send-time check, on the very addresses the socket connects to.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) return (callback as (e: Error | null, a: string | LookupAddress[], f?: number) => void)(error, "", 0);
    const list = addresses as LookupAddress[];
    for (const { address } of list) {
      const refusal = refusalOf(address);
      if (refusal) return (callback as (e: Error | null, a: string, f?: number) => void)(new UrlRefused(`${hostname} resolves to ${refusal}`), "", 0);
    }
    if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
    const first = list[0];
    (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family);
  });
};

/** The send-time check for an IP-literal host (Node does not call `lookup` for those). */
export function refusalOfLiteralHost(url: URL): string | null {
  const host = hostOf(url);
  return isIP(host) ? refusalOf(host) : null;
}
