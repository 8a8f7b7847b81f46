import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * SSRF guard for outgoing webhooks (docs/webhooks.md "URL guard"). A URL must be http(s); its host is
 * resolved and every address checked, at creation and again at every send (the check runs inside
 * the socket's DNS lookup, so the address connected to is the address checked: DNS rebinding
 * cannot slip a private address in between). `ALLOW_PRIVATE_WEBHOOK_URLS=true` lifts the check.
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
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (incl. fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64: reaches IPv4 addresses we cannot check
  ["2001:db8::", 32], // documentation
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv6");
}

/** Why `address` may not be a webhook target, or null when it may. */
export function refusalOf(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d): judge the IPv4 address it carries.
    const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped) return refusalOf(mapped[1]);
    if (/^::ffff:/i.test(address)) return `${address} is an IPv4-mapped address`;
  }
  return REFUSED.check(address, family === 4 ? "ipv4" : "ipv6") ? `${address} is a private, loopback, link-local, multicast or reserved address` : null;
}

export class UrlRefused extends Error {}

/** Parses and checks the form of a webhook URL (http or https, a host); throws UrlRefused. */
export function parseWebhookUrl(raw: string): URL {
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
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(raw);
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
