// Issue 21 item 1: TRUST_PROXY as a hop count or the proxies' addresses; the client is the first
// untrusted address from the right of X-Forwarded-For, and that is what rate limits, declines and
// the request log use (request.ip).
import { createServer, request as httpRequest, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenProxySocket } from "../../src/http/proxy-socket.js";
import { buildTestApp, type TestApp } from "../support/app.js";

const opened: TestApp[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(opened.splice(0).map((t) => t.close()));
});
async function open(env: Record<string, string>) {
  const t = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "20", ...env } });
  opened.push(t);
  return t;
}

/** The request log line's `client` of the last request to `route`. */
function loggedClients(t: TestApp): string[] {
  return t.logs
    .flatMap((chunk) => chunk.split("\n"))
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line).client as string);
}

describe("TRUST_PROXY", () => {
  // nginx's $proxy_add_x_forwarded_for appends the peer to whatever the client sent: an attacker
  // writes any addresses in front of its own.
  for (const setting of ["1", "10.0.0.0/8", "10.0.0.1,127.0.0.1"]) {
    it(`TRUST_PROXY=${setting}: a spoofed X-Forwarded-For cannot change the rate-limit bucket (the 21st request is 429)`, async () => {
      const t = await open({ TRUST_PROXY: setting });
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) {
        const res = await t.app.inject({
          method: "GET",
          url: "/api/nope",
          remoteAddress: "10.0.0.1",
          headers: { "x-forwarded-for": `198.51.100.${i + 1}, 203.0.113.9` },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true);
      expect(statuses[20]).toBe(429);
      expect(new Set(loggedClients(t))).toEqual(new Set(["203.0.113.9"]));
    });
  }

  it("a client reaching the instance directly (not from a trusted address) is its socket address whatever it claims", async () => {
    const t = await open({ TRUST_PROXY: "10.0.0.0/8" });
    for (let i = 0; i < 20; i++) await t.app.inject({ method: "GET", url: "/api/nope", remoteAddress: "192.0.2.50", headers: { "x-forwarded-for": `198.51.100.${i + 1}` } });
    const refused = await t.app.inject({ method: "GET", url: "/api/nope", remoteAddress: "192.0.2.50", headers: { "x-forwarded-for": "198.51.100.200" } });
    expect(refused.statusCode).toBe(429);
    expect(new Set(loggedClients(t))).toEqual(new Set(["192.0.2.50"]));
  });

  it("a hop count of 2 takes the address two proxies in; other clients behind the same proxies keep their own buckets", async () => {
    const t = await open({ TRUST_PROXY: "2", RATE_LIMIT_ANONYMOUS: "1" });
    const first = await t.app.inject({ method: "GET", url: "/api/nope", remoteAddress: "127.0.0.1", headers: { "x-forwarded-for": "6.6.6.6, 203.0.113.9, 10.0.0.7" } });
    expect(first.statusCode).toBe(404);
    const other = await t.app.inject({ method: "GET", url: "/api/nope", remoteAddress: "127.0.0.1", headers: { "x-forwarded-for": "203.0.113.10, 10.0.0.7" } });
    expect(other.statusCode).toBe(404);
    const again = await t.app.inject({ method: "GET", url: "/api/nope", remoteAddress: "127.0.0.1", headers: { "x-forwarded-for": "7.7.7.7, 203.0.113.9, 10.0.0.7" } });
    expect(again.statusCode).toBe(429);
    expect(loggedClients(t)).toEqual(["203.0.113.9", "203.0.113.10", "203.0.113.9"]);
  });

  it("through a real chain of two HTTP proxies the client address is the one the first proxy saw", async () => {
    const t = await open({ TRUST_PROXY: "127.0.0.1" });
    const appUrl = new URL(await t.app.listen({ port: 0, host: "127.0.0.1" }));
    // Each proxy appends its peer to X-Forwarded-For, as nginx's $proxy_add_x_forwarded_for does.
    const proxy = (targetPort: number) =>
      new Promise<number>((resolve) => {
        const server = createServer((req, res) => {
          const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
          const upstream = httpRequest({ host: "127.0.0.1", port: targetPort, path: req.url, method: req.method, headers: { ...req.headers, "x-forwarded-for": forwarded } }, (answer) => {
            res.writeHead(answer.statusCode!, answer.headers);
            answer.pipe(res);
          });
          req.pipe(upstream);
        });
        servers.push(server);
        server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
      });
    const inner = await proxy(Number(appUrl.port));
    const outer = await proxy(inner);
    // The client claims an address; the outer proxy saw 127.0.0.1 (the test), which is trusted too,
    // so the claimed address is the first untrusted one from the right.
    const res = await fetch(`http://127.0.0.1:${outer}/api/nope`, { headers: { "x-forwarded-for": "203.0.113.77" } });
    expect(res.status).toBe(404);
    expect(loggedClients(t)).toEqual(["203.0.113.77"]);
  });

  it("on PROXY_SOCKET the peer counts as 127.0.0.1: TRUST_PROXY=127.0.0.1 takes the client nginx appended", async () => {
    const t = await open({ TRUST_PROXY: "127.0.0.1" });
    const dir = mkdtempSync(path.join(tmpdir(), "trust-proxy-"));
    const proxy = await listenProxySocket(t.app.server, path.join(dir, "proxy.sock"), () => {});
    try {
      const get = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          httpRequest({ socketPath: path.join(dir, "proxy.sock"), agent: false, path: "/api/nope", headers: { host: "checkout.test", ...headers } }, (res) => resolve(res.resume().statusCode!)).on("error", reject).end();
        });
      expect(await get({ "x-forwarded-for": "198.51.100.1, 203.0.113.9" })).toBe(404);
      expect(await get({})).toBe(404);
      expect(loggedClients(t)).toEqual(["203.0.113.9", "127.0.0.1"]);
    } finally {
      await proxy.withdraw();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
