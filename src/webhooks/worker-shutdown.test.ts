// Shutdown during a round of many sends: the sends in flight are aborted and their deliveries put back
// as due with the attempt given back, and the long-lived shutdown signal carries one listener per round,
// not one per send (30 concurrent sends used to add 30 and set off MaxListenersExceededWarning).
import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { webhookAttempts, webhookDeliveries } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

let t: TestApp;
let receiver: http.Server;
let url = "";
const received: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  // A receiver that never answers: every send stays in flight until it is aborted.
  receiver = http.createServer((request) => {
    received.push(String(request.headers["webhook-id"]));
    request.resume();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await t.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("webhook sends in flight at shutdown", () => {
  it("adds one abort listener per round to the runner's signal, and puts every aborted delivery back as due", async () => {
    const ids = Array.from({ length: 30 }, () => newId("msg"));
    const now = new Date(t.clock.now());
    await t.deps.database.db.insert(webhookDeliveries).values(
      ids.map((id) => ({ id, eventId: newId("evt"), target: "token", brandId: "brand", eventType: "checkout.created", url, body: "{}", status: "pending" as const, attempts: 0, nextAttemptAt: now, createdAt: now })),
    );
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const round = t.app.webhookWorker.deliverDue();
      await until(() => received.length === ids.length);
      expect(getEventListeners(t.app.jobs.signal, "abort").length).toBeLessThanOrEqual(1);

      await t.app.jobs.stop();
      await round;
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
      expect(getEventListeners(t.app.jobs.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("warning", onWarning);
    }

    const rows = await t.deps.database.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "pending", attempts: 0 });
      expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(t.clock.now());
    }
    expect(await t.deps.database.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids))).toEqual([]);
  });
});
