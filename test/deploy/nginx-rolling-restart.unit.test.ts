// deploy/nginx/checkout.conf as shipped (only ports, paths and the certificate swapped for test values)
// in Debian's nginx, over TLS, in front of two real instances on one PostgreSQL database: a rolling
// restart (SIGTERM, wait for the exit, start again, then the other) under GET and POST traffic
// (token generate + initialize, the checkout page) costs 0 requests (issue 21 items 2 and 9), both
// instances serve, and the access log names no checkout token, short-link or payment-link code or
// upsell session id. TLS 1.2 offers only forward-secret AEAD suites and the Server header no version
// (issue 31 item 12). nginx reaches each instance on its PROXY_SOCKET, as shipped; on failure
// nginx's error log is printed and its directory kept.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import tls from "node:tls";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startCluster, startInstance, type Cluster } from "../cluster/cluster.js";

const NGINX = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].find((p) => existsSync(p));
const postgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "");
const skip = !NGINX
  ? "nginx not found (Debian: apt-get install nginx)"
  : !postgres
    ? "DATABASE_URL is not a postgres:// URL (two instances cannot share the embedded database)"
    : !existsSync("dist/main.js")
      ? "dist/main.js is missing (npm run build)"
      : null;
if (skip) console.warn(`test/deploy/nginx-rolling-restart: skipped, ${skip}`);

/** The shipped file with the test's sockets, ports, log path and certificate; everything else as shipped. */
function testConfig(shipped: string, o: { sockets: [string, string]; listen: number; plain: number; dir: string }): string {
  const swapped = shipped
    .replace("server unix:/run/checkout/3001/proxy.sock", `server unix:${o.sockets[0]}`)
    .replace("server unix:/run/checkout/3002/proxy.sock", `server unix:${o.sockets[1]}`)
    .replace(/^\s*listen \[::\].*\n/gm, "")
    .replace("listen 80;", `listen 127.0.0.1:${o.plain};`)
    .replace("listen 443 ssl;", `listen 127.0.0.1:${o.listen} ssl;`)
    .replaceAll("/etc/ssl/checkout/", `${o.dir}/`)
    .replaceAll("/var/log/nginx/", `${o.dir}/`);
  for (const value of [`unix:${o.sockets[0]}`, `unix:${o.sockets[1]}`, `${o.dir}/fullchain.pem`, `${o.dir}/checkout.access.log`]) {
    if (!swapped.includes(value)) throw new Error(`deploy/nginx/checkout.conf changed shape: ${value} was not substituted`);
  }
  return swapped;
}

describe.skipIf(skip !== null)("nginx in front of two instances, rolling restart", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "nginx-checkout-"));
  let cluster: Cluster;
  let nginx: ChildProcess | null = null;
  let nginxOutput = "";
  let listen = 0;
  let plain = 0;
  let ca = "";
  let keep = false;
  const sockets: [string, string] = [path.join(dir, "a.sock"), path.join(dir, "b.sock")];

  beforeAll(async () => {
    // nginx's workers (not root) write its temp files: the directory is theirs to use.
    chmodSync(dir, 0o755);
    for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) {
      mkdirSync(path.join(dir, sub));
      chmodSync(path.join(dir, sub), 0o777);
    }
    // RSA, as most certificates are: the one kind of key that static-RSA key exchange suites can use.
    const cert = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", `${dir}/privkey.pem`, "-out", `${dir}/fullchain.pem`], { encoding: "utf8" });
    if (cert.status !== 0) throw new Error(`openssl: ${cert.stderr}`);
    ca = readFileSync(`${dir}/fullchain.pem`, "utf8");

    // A 3-s drain: longer than nginx's upstream keepalive_timeout (2 s), as the shipped file requires.
    cluster = await startCluster({ instances: 1, redisUrl: null, env: { SHUTDOWN_DRAIN_SECONDS: "3", LOG_LEVEL: "info", PROXY_SOCKET: sockets[0] } });
    await cluster.add({ PROXY_SOCKET: sockets[1] });
    listen = await freePort();
    plain = await freePort();
    const site = testConfig(readFileSync("deploy/nginx/checkout.conf", "utf8"), { sockets, listen, plain, dir });
    writeFileSync(`${dir}/checkout.conf`, site);
    writeFileSync(
      `${dir}/nginx.conf`,
      `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 512; }\n` +
        `http {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/checkout.conf;\n}\n`,
    );
    const check = spawnSync(NGINX!, ["-t", "-p", dir, "-c", `${dir}/nginx.conf`, "-e", `${dir}/error.log`], { encoding: "utf8" });
    if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
    nginx = spawn(NGINX!, ["-p", dir, "-c", `${dir}/nginx.conf`, "-e", `${dir}/error.log`], { stdio: ["ignore", "pipe", "pipe"] });
    nginx.stdout!.on("data", (d) => (nginxOutput += d));
    nginx.stderr!.on("data", (d) => (nginxOutput += d));
    const deadline = Date.now() + 20_000;
    while ((await request("GET", "/readyz").catch(() => null))?.status !== 200) {
      if (Date.now() > deadline || nginx.exitCode !== null) throw new Error(`nginx did not answer: ${nginxOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once("exit", resolve));
      nginx.kill("SIGQUIT");
      await exited;
    }
    await cluster?.stop();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  });

  // One keep-alive agent: clients reuse their connection to nginx, as browsers do.
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
  function request(method: string, url: string, body?: unknown): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        { host: "127.0.0.1", port: listen, method, path: url, servername: "localhost", ca, agent, headers: { host: "localhost", ...(payload ? { "content-type": "application/json" } : {}) }, timeout: 30_000 },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode!, text, headers: res.headers }));
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", reject);
      req.end(payload);
    });
  }

  /**
   * Four clients in a loop through nginx: generate a token (POST), initialize it (POST), open its
   * page (GET). `until(n)` waits for n more requests; `stop()` ends the loops.
   */
  function traffic() {
    const failures: string[] = [];
    const tokens: string[] = [];
    let done = 0;
    let running = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          const generated = await request("POST", "/api/token/generate", { orderInfo: { total: 1200, currency: "USD", productName: "Kit" } });
          if (generated.status !== 200) {
            failures.push(`generate ${generated.status} ${generated.text.slice(0, 200)}`);
            continue;
          }
          const token = JSON.parse(generated.text).token as string;
          if (tokens.length < 50) tokens.push(token);
          const init = await request("POST", "/api/checkout/initialize", { token, provider: "intent_gateway" });
          if (init.status !== 200) failures.push(`initialize ${init.status} ${init.text.slice(0, 200)}`);
          const page = await request("GET", `/checkout/${token}`);
          if (page.status !== 200) failures.push(`page ${page.status} ${page.text.slice(0, 200)}`);
          done += 3;
        } catch (error) {
          failures.push(`network: ${(error as Error).message}`);
        }
      }
    });
    return {
      failures,
      tokens,
      get done() {
        return done;
      },
      until: async (more: number) => {
        const count = done + more;
        const deadline = Date.now() + 60_000;
        while (done < count) {
          if (Date.now() > deadline) throw new Error(`traffic stalled at ${done} requests; failures: ${failures.slice(0, 5).join("; ")}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** nginx's error log after `offset` characters: [crit] lines, and the rest without the failed connects a restart is expected to cause. */
  function errorLog(offset = 0) {
    const lines = readFileSync(`${dir}/error.log`, "utf8").slice(offset).split("\n").filter(Boolean);
    const connecting = (line: string) => line.includes("while connecting to upstream");
    return { crit: lines.filter((line) => line.includes("[crit]")), other: lines.filter((line) => !connecting(line)), all: lines };
  }

  it("restarts each instance in turn under GET and POST traffic with 0 failed requests", { timeout: 300_000 }, async () => {
    const load = traffic();
    const logAt = readFileSync(`${dir}/error.log`, "utf8").length;
    try {
      await load.until(30);
      for (const index of [0, 1]) {
        const old = cluster.instances[index]!;
        const code = await old.stop("SIGTERM");
        expect(code, old.output()).toBe(0);
        await load.until(15); // the other instance carries everything meanwhile
        cluster.instances[index] = await startInstance({ ...cluster.env, PROXY_SOCKET: sockets[index]! }, { port: old.port });
        await load.until(30);
      }
    } finally {
      await load.stop();
    }
    const { failures, tokens, done } = load;
    const sent = done + failures.length;
    // One [crit] "connect() to unix:… failed (2: No such file or directory) while connecting to
    // upstream" per request nginx first tried on the restarting instance (then sent to the other).
    console.log(`nginx rolling restart: ${sent} requests through nginx, ${failures.length} failed, ${errorLog(logAt).crit.length} [crit] lines in its error log`);
    if (failures.length > 0) {
      // nginx's error log says how the upstream connection failed (reset, closed early, refused):
      // printed without the connects a restart is expected to fail, and kept with the access log.
      keep = true;
      const { all, other } = errorLog();
      console.error(`nginx error log (all of it kept in ${dir}; ${all.length - other.length} failed connects left out):\n${other.join("\n")}`);
    }
    expect(failures).toEqual([]);
    expect(done).toBeGreaterThanOrEqual(120);

    // Both instances served (upstream= in the shipped log format), and no token reached the log.
    const log = readFileSync(`${dir}/checkout.access.log`, "utf8");
    for (const socket of sockets) expect(log).toContain(`upstream=unix:${socket} upstream_status=200`);
    expect(log).toContain('"GET /checkout/<token> HTTP/1.1" 200');
    expect(log).toContain('"POST /api/checkout/initialize HTTP/1.1" 200');
    for (const token of tokens) expect(log).not.toContain(token.slice(-20));
  });

  /** The TLS 1.2 (or 1.3) handshake with only `ciphers` offered: the suite agreed, or the error. */
  function handshake(ciphers: string | undefined, version: "TLSv1.2" | "TLSv1.3"): Promise<string> {
    return new Promise((resolve) => {
      const socket = tls.connect({ host: "127.0.0.1", port: listen, servername: "localhost", ca, ciphers, minVersion: version, maxVersion: version }, () => {
        resolve(socket.getCipher().standardName);
        socket.end();
      });
      socket.on("error", (error) => resolve(`refused: ${(error as { code?: string }).code ?? error.message}`));
    });
  }

  it("TLS 1.2 offers only forward-secret AEAD suites (no static RSA, no CBC), and no version in the Server header", async () => {
    // Each offered alone; nginx's default list (HIGH:!aNULL:!MD5) accepted all of the first four.
    for (const weak of ["AES128-SHA", "AES256-GCM-SHA384", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384"]) {
      expect(await handshake(weak, "TLSv1.2"), weak).toMatch(/^refused/);
    }
    expect(await handshake("ECDHE-RSA-AES128-GCM-SHA256", "TLSv1.2")).toBe("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    expect(await handshake("ECDHE-RSA-CHACHA20-POLY1305", "TLSv1.2")).toBe("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");
    expect(await handshake(undefined, "TLSv1.3")).toMatch(/^TLS_(AES|CHACHA20)/);

    const proxied = await request("GET", "/readyz");
    expect(proxied.headers.server).toBe("nginx");
    // nginx's own answer (the /metrics block): its page names no version either.
    const own = await request("GET", "/metrics");
    expect(own.headers.server).toBe("nginx");
    expect(own.text).not.toMatch(/nginx\/\d/);
  });

  it("logs short-link and payment-link codes and upsell session ids as placeholders", async () => {
    const generated = await request("POST", "/api/token/generate", { orderInfo: { total: 1200, currency: "USD", productName: "Kit" } });
    const code = JSON.parse(generated.text).code as string;
    expect((await request("GET", `/c/${code}`)).status).toBe(302);
    await request("GET", "/l/plink-code-0123456789");
    await request("GET", "/api/upsell/session/upsell-session-0123456789/offer");
    // nginx writes a request's line after its answer went out: wait for the last one.
    const deadline = Date.now() + 10_000;
    let log = "";
    while (!(log = readFileSync(`${dir}/checkout.access.log`, "utf8")).includes("/offer HTTP/1.1") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toContain('"GET /c/<code> HTTP/1.1" 302');
    expect(log).toContain('"GET /l/<code> HTTP/1.1"');
    expect(log).toContain('"GET /api/upsell/session/<session>/offer HTTP/1.1"');
    for (const secret of [code, "plink-code-0123456789", "upsell-session-0123456789"]) expect(log).not.toContain(secret);
  });

  it("answers plain HTTP with a redirect to https and keeps /metrics off the public address", async () => {
    const redirect = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port: plain, path: "/checkout/abc.def.ghi", headers: { host: "checkout.example.com" } }, (res) => resolve(res.resume())).on("error", reject);
    });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe("https://checkout.example.com/checkout/abc.def.ghi");
    expect((await request("GET", "/metrics")).status).toBe(404);
    expect(readFileSync(`${dir}/checkout.access.log`, "utf8")).not.toContain("abc.def.ghi");
  });
});
