// The sender on its own: a receiver that never answers is a timed-out failure (the 15 s limit, here
// shortened), Retry-After in seconds or as an HTTP date, and the guard refusing literal private hosts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keptResponseBody, parseRetryAfter, RESPONSE_BODY_KEPT, sendWebhook } from "./send.js";

let server: http.Server;
let base = "";
beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    if (request.url === "/hang") return; // never answers
    if (request.url === "/long") return void response.writeHead(500).end("é".repeat(5000));
    response.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("sendWebhook", () => {
  it("gives up on a receiver that does not answer within the timeout", async () => {
    const result = await sendWebhook({ url: `${base}/hang`, headers: {}, body: "{}", allowPrivate: true, timeoutMs: 200, now: Date.now() });
    expect(result).toMatchObject({ success: false, statusCode: null, error: "timed out after 200 ms" });
  });

  it("sends when private addresses are allowed, refuses the same literal address when not", async () => {
    expect((await sendWebhook({ url: `${base}/ok`, headers: {}, body: "{}", allowPrivate: true, now: Date.now() })).success).toBe(true);
    const refused = await sendWebhook({ url: `${base}/ok`, headers: {}, body: "{}", allowPrivate: false, now: Date.now() });
    expect(refused.success).toBe(false);
    expect(refused.error).toMatch(/^URL refused: 127\.0\.0\.1 is a private/);
    const byName = await sendWebhook({ url: `${base.replace("127.0.0.1", "localhost")}/ok`, headers: {}, body: "{}", allowPrivate: false, now: Date.now() });
    expect(byName.error).toMatch(/^URL refused: localhost resolves to/);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates relative to now, ignores garbage", () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:10:00 GMT", now)).toBe(600_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe("the receiver's answer kept per attempt (issue 36)", () => {
  it("keeps its first 2 KB, cut at a character boundary and marked; none for an empty answer", async () => {
    const long = await sendWebhook({ url: `${base}/long`, headers: {}, body: "{}", allowPrivate: true, now: Date.now() });
    expect(long).toMatchObject({ success: false, statusCode: 500 });
    expect(long.responseBody!.endsWith("é…")).toBe(true);
    expect(Buffer.byteLength(long.responseBody!.slice(0, -1))).toBe(RESPONSE_BODY_KEPT);
    expect((await sendWebhook({ url: `${base}/ok`, headers: {}, body: "{}", allowPrivate: true, now: Date.now() })).responseBody).toBeNull();
    expect(keptResponseBody("x".repeat(RESPONSE_BODY_KEPT))).toBe("x".repeat(RESPONSE_BODY_KEPT));
    expect(keptResponseBody("a" + "é".repeat(RESPONSE_BODY_KEPT))).toBe("a" + "é".repeat((RESPONSE_BODY_KEPT - 2) / 2) + "…");
  });
});
