// WORKERS=off (docs/operations.md "Restore drill"): a restored copy of the database sends nothing until
// told. With the jobs `off`, a completed checkout's events stay in the outbox (no webhook delivery is
// even created) and a pass a route asks for does not run; the same app with its jobs running fans
// them out at once, so this test fails if `off` stops holding them.
import { isNull } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { outboxEvents, webhookDeliveries } from "../db/schema/index.js";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function afterACheckout(jobs: "off" | "background") {
  t = await buildTestApp({ jobs, env: { WORKERS: jobs === "off" ? "off" : "on" } });
  await completeCheckoutViaApi(t);
  const triggered = await t.app.jobs.trigger("webhook-delivery");
  const db = t.deps.database.db;
  const undispatched = async () => (await db.select().from(outboxEvents).where(isNull(outboxEvents.dispatchedAt))).length;
  if (jobs === "off") {
    // Nothing to wait for: real time for a loop that would run (it polls at least every 200 ms).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } else {
    // Running jobs fan the events out: wait for that, not for a fixed time.
    const deadline = Date.now() + 10_000;
    while ((await undispatched()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { triggered, undispatched: await undispatched(), deliveries: (await db.select().from(webhookDeliveries)).length };
}

describe("WORKERS=off", () => {
  it("parses as a setting: on (default) or off, anything else refuses to start", async () => {
    const { loadConfig } = await import("../config/index.js");
    expect(loadConfig({ DATABASE_URL: "memory://" }).workers).toBe("on");
    expect(loadConfig({ DATABASE_URL: "memory://", WORKERS: "off" }).workers).toBe("off");
    expect(() => loadConfig({ DATABASE_URL: "memory://", WORKERS: "no" })).toThrow('WORKERS must be one of on, off, got "no"');
  });

  it("leaves a checkout's events in the outbox and runs no pass, even one asked for", async () => {
    const off = await afterACheckout("off");
    expect(off).toEqual({ triggered: false, undispatched: 4, deliveries: 0 });
  });

  it("(the same with the jobs running: the events are fanned out)", async () => {
    const on = await afterACheckout("background");
    expect(on.undispatched).toBe(0);
  });
});
