// Issue 31 item 10: failed-query log lines printed every statement parameter (after PostgreSQL
// restarts, 94 lines held whole checkout tokens with short-link codes, one a saved payment-method
// token). Here every write fails at each step of a buyer's journey, first as a lost connection
// (SQLSTATE 08006: answered 503, logged "database unavailable"), then as any other database error
// (500, logged "unhandled error"); then the step is repeated and succeeds. No log line may hold the
// checkout token, the short code, the card number, the buyer's e-mail address, the saved payment
// method's token or the upsell session id; each failed line names the statement instead.
import { sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { card } from "../support/provider-payments.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { LOG_LEVEL: "info" } });
});
afterAll(() => t.close());

const EMAIL = "grace.hopper@example.org";
const CARD = "4242424242424242";
const FAULTS = { lost: "08006", other: "P0001" } as const;

/** Every write to every table of the schema fails with `sqlstate` (a statement trigger), until healed. */
async function failWrites(sqlstate: string): Promise<void> {
  const db = t.deps.database.db;
  await db.execute(sql.raw(`create or replace function test_fail_writes() returns trigger language plpgsql as $$ begin raise exception 'forced by the test' using errcode = '${sqlstate}'; end $$`));
  const tables = await db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  for (const { table_name } of tables.rows as { table_name: string }[]) {
    await db.execute(sql.raw(`create trigger test_fail_writes before insert or update or delete on "${table_name}" for each statement execute function test_fail_writes()`));
  }
}

async function healWrites(): Promise<void> {
  const db = t.deps.database.db;
  const tables = await db.execute(sql`select event_object_table as t from information_schema.triggers where trigger_name = 'test_fail_writes' group by event_object_table`);
  for (const row of tables.rows as { t: string }[]) await db.execute(sql.raw(`drop trigger test_fail_writes on "${row.t}"`));
}

const post = (url: string, payload: object) => t.app.inject({ method: "POST", url, payload });

/** The step under both faults (503, then 500), then healed: its answer. */
async function throughFaults(step: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  for (const [kind, sqlstate] of Object.entries(FAULTS)) {
    await failWrites(sqlstate);
    try {
      const failed = await step();
      expect(failed.statusCode, `${kind}: ${failed.body}`).toBe(kind === "lost" ? 503 : 500);
    } finally {
      await healWrites();
    }
  }
  const answer = await step();
  expect(answer.statusCode, answer.body).toBe(200);
  return answer;
}

describe("log lines after database errors during a buyer's journey", () => {
  it("hold no token, short code, card number, e-mail address or session id, and name the failed statement", async () => {
    const generated = json(await throughFaults(() => post("/api/token/generate", { orderInfo: { total: 2500, currency: "USD", productName: "Kit" }, customer: { email: EMAIL } })));
    const { token, code } = generated as { token: string; code: string };
    const orderId = generated.payload.orderId as string;
    expect((await t.app.inject({ method: "GET", url: `/c/${code}` })).statusCode).toBe(302);
    await throughFaults(() => post("/api/checkout/initialize", { token, provider: "vault_gateway_b" }));
    const paid = json(await throughFaults(() => post("/api/providers/vault_gateway_b/process-payment", { orderId, amount: 2500, currency: "USD", ...card(CARD) })));
    const completion = { orderId, transactionId: paid.transactionId, provider: "vault_gateway_b", customerEmail: EMAIL, customerName: "Grace Hopper", amount: 2500, currency: "USD" };
    const done = json(await throughFaults(() => post("/api/checkout/complete", completion)));
    const paymentMethodToken = done.paymentMethodToken as string;
    expect(paymentMethodToken).toBeTruthy();
    const session = json(
      await throughFaults(() =>
        post("/api/upsell/create-session", { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: EMAIL, paymentMethodToken, provider: "vault_gateway_b", offers: [{ id: "care", name: "Care plan", price: 900 }] }),
      ),
    );
    await throughFaults(() => post("/api/upsell/accept", { sessionId: session.sessionId, offerId: "care" }));

    const lines = t.logs.join("").split("\n").filter(Boolean);
    const failures = lines.filter((line) => /"msg":"(database unavailable|unhandled error)"/.test(line));
    // 2 faults × 6 steps, each logged once.
    expect(failures.length).toBeGreaterThanOrEqual(12);
    const secrets = {
      token, // the one that worked: used again by initialize and the short link
      "the token's signature": token.split(".")[2]!,
      code,
      card: CARD,
      email: EMAIL,
      paymentMethodToken,
      sessionId: session.sessionId as string,
    };
    for (const [what, secret] of Object.entries(secrets)) {
      const leaking = lines.filter((line) => line.includes(secret));
      expect(leaking, `${what} in the log`).toEqual([]);
    }
    // Each generate mints a new token and code, so those of the failed attempts are known only by
    // their shape: no JWT at all, and no statement's parameters whatever they hold.
    expect(lines.filter((line) => /eyJ[\w-]+\.[\w-]+\./.test(line)), "a JWT in the log").toEqual([]);
    expect(lines.filter((line) => /params/.test(line)), "statement parameters in the log").toEqual([]);
    for (const line of failures) expect(JSON.parse(line).err.statement, line).toMatch(/^[a-z_]+( [a-z_]+)?$/);
  });
});
