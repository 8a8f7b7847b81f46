// PROXY_SOCKET: once withdrawn, a new connection fails at connect (nothing sent, so a proxy may
// send the request elsewhere) while one made before is still served, and close() waits for it.
import { existsSync, linkSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenProxySocket } from "./proxy-socket.js";

const dirs: string[] = [];
const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), "proxy-socket-"));
  dirs.push(dir);
  const server = http.createServer((req, res) => {
    res.setHeader("connection", "close");
    res.end(`${req.method} ${req.socket.remoteAddress}`);
  });
  servers.push(server);
  return { socketPath: path.join(dir, "proxy.sock"), server };
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once("connect", () => resolve(socket)).once("error", reject);
  });
}

function post(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    socket.on("data", (d) => (answer += d)).once("error", reject).once("close", () => resolve(answer));
    socket.write("POST /pay HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}");
  });
}

describe("PROXY_SOCKET", () => {
  it("serves a connection made before the path was withdrawn; a new one fails with ENOENT; close waits for the first", async () => {
    const { socketPath, server } = setup();
    const proxy = await listenProxySocket(server, socketPath, () => {});
    const early = await connect(socketPath);
    await proxy.withdraw();
    expect(existsSync(socketPath)).toBe(false);
    await expect(connect(socketPath)).rejects.toMatchObject({ code: "ENOENT" });

    let closed = false;
    const closing = proxy.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false); // not listening any more, but the early connection is open
    const answer = await post(early);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    // The peer counts as 127.0.0.1, the address TRUST_PROXY names for a proxy on this machine.
    expect(answer).toMatch(/POST 127\.0\.0\.1$/);
    await closing;
  });

  it("replaces a socket file left by a killed process, refuses one in use and anything that is not a socket", async () => {
    const { socketPath, server } = setup();
    const other = net.createServer().listen(socketPath);
    await new Promise((resolve) => other.once("listening", resolve));
    await expect(listenProxySocket(server, socketPath, () => {})).rejects.toThrow(/another process is listening/);
    // A killed process leaves its file behind (a clean close removes it): a second name of the file outlives the close.
    linkSync(socketPath, `${socketPath}.left`);
    await new Promise((resolve) => other.close(resolve));
    const proxy = await listenProxySocket(server, `${socketPath}.left`, () => {});
    const answer = await post(await connect(`${socketPath}.left`));
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    await proxy.close();

    writeFileSync(`${socketPath}.txt`, "");
    await expect(listenProxySocket(server, `${socketPath}.txt`, () => {})).rejects.toThrow(/is not a socket/);
  });
});
