// Issue 33 item 6: `checkout listen` and `checkout trigger` end to end. A test app listens on a port;
// the built CLI (dist/cli.js: `npm run build` or `npx tsc -p tsconfig.build.json` first) runs as a
// child process with a test key, a triggered event reaches a local receiver signed with the secret the
// CLI printed (verified with the standardwebhooks package), and a live key is refused.
import { spawn, type ChildProcess } from "node:child_process";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";
import { registerOwner, type Registered } from "../support/admin.js";
import { createApiKey, withKey } from "../support/merchant.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import { apiKeys } from "../../src/db/schema/index.js";
import { ManualClock } from "../../src/lib/clock.js";

let t: TestApp;
let owner: Registered;
let key: string;
let serviceUrl: string;
let receiver: Receiver;
beforeAll(async () => {
  // The receiver verifies the CLI's signature timestamp against the real time; the app's clock starts there too.
  t = await buildTestApp({ clock: new ManualClock(Date.now()) });
  owner = await registerOwner(t, "Local dev shop");
  key = (await createApiKey(t, owner.session)).secret;
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const address = t.app.server.address();
  serviceUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

interface Cli {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The built CLI as a developer runs it (`npx checkout …` runs this file), the key and URL in its environment. */
function cli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, ["dist/cli.js", ...args], {
    env: { PATH: process.env.PATH ?? "", CHECKOUT_API_KEY: key, CHECKOUT_URL: serviceUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("checkout listen", () => {
  it("forwards a triggered test event to the local URL, signed with the secret it printed, one line per event", { timeout: 90_000 }, async () => {
    // An event made before listen starts is not forwarded: only events from now on.
    expect((await withKey(t, "POST", "/api/v1/events/trigger", key, { type: "checkout.created" })).statusCode).toBe(201);
    const listen = cli(["listen", "--forward-to", `${receiver.url}/webhooks`]);
    try {
      const secret = await until("the printed secret", () => /Webhook signing secret: (whsec_\S+)/.exec(listen.output())?.[1]);

      const trigger = cli(["trigger", "order.confirmed"]);
      expect(await trigger.exited, trigger.output()).toBe(0);
      const eventId = /Triggered order\.confirmed \[(evt_[\w-]+)\]/.exec(trigger.output())?.[1];
      expect(eventId, trigger.output()).toBeDefined();

      const [got] = await until("the forwarded event", () => (receiver.received.length > 0 ? receiver.received : undefined));
      expect(got.path).toBe("/webhooks");
      const body = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as { id: string; type: string; timestamp: string; data: Record<string, unknown> };
      expect(body).toMatchObject({ id: eventId, type: "order.confirmed", data: { livemode: false, currency: "USD" } });
      expect(got.headers["webhook-id"]).toMatch(/^msg_/);
      // Another secret does not verify.
      expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(got.body, got.headers as Record<string, string>)).toThrow();
      // One line per event with the local answer's status.
      await until("the event's line", () => listen.output().includes(`order.confirmed [${eventId}]  <-- [200]`));

      // The receiver answers 500: the line says so; the next event is forwarded all the same.
      receiver.answer = { status: 500 };
      const second = cli(["trigger", "refund.succeeded"]);
      expect(await second.exited, second.output()).toBe(0);
      await until("the failing line", () => /refund\.succeeded \[evt_[\w-]+\]  <-- \[500\]/.test(listen.output()));
      expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(["order.confirmed", "refund.succeeded"]);
    } finally {
      listen.child.kill("SIGINT");
    }
    expect(await listen.exited, listen.output()).toBe(0);
  });

  it("refuses a live key, before forwarding anything", { timeout: 60_000 }, async () => {
    const byPrefix = cli(["listen", "--forward-to", `${receiver.url}/webhooks`], { CHECKOUT_API_KEY: "sk_live_0123456789abcdefghijABCDEFGHIJ0123" });
    expect(await byPrefix.exited).toBe(1);
    expect(byPrefix.output()).toContain("live key");
    // A key the service says is live (its mode), whatever it looks like.
    const live = await createApiKey(t, owner.session, { name: "live" });
    await t.deps.database.db.update(apiKeys).set({ livemode: true }).where(eq(apiKeys.id, live.id));
    const byMode = cli(["listen", "--forward-to", `${receiver.url}/webhooks`], { CHECKOUT_API_KEY: live.secret });
    expect(await byMode.exited).toBe(1);
    expect(byMode.output()).toContain("live key");
    expect(byMode.output()).not.toContain("Webhook signing secret");
    const trigger = cli(["trigger", "order.confirmed"], { CHECKOUT_API_KEY: live.secret });
    expect(await trigger.exited).toBe(1);
    expect(trigger.output()).toContain("403");
    // A wrong key: the service's 401, said plainly.
    const wrong = cli(["listen", "--forward-to", `${receiver.url}/webhooks`], { CHECKOUT_API_KEY: "sk_0123456789abcdefghijABCDEFGHIJ0123456789" });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toContain("401");
  });
});
