// Helpers for the Idempotency-Key tests (not a test file itself).
import { eq } from "drizzle-orm";
import { idempotencyKeys } from "../../src/db/schema/index.js";
import type { TestApp } from "./app.js";

/**
 * What a request killed before its answer leaves behind (src/http/idempotency.ts): the reservation of
 * `key` still `running`, with no answer, and older than the minute after which the next request with
 * the key takes it over. Throws unless exactly one reservation holds the key.
 */
export async function abandonReservation(t: TestApp, key: string): Promise<void> {
  const rows = await t.deps.database.db
    .update(idempotencyKeys)
    .set({ state: "running", statusCode: null, responseBody: null, responseHeaders: null, createdAt: new Date(t.clock.now() - 61_000) })
    .where(eq(idempotencyKeys.key, key))
    .returning({ key: idempotencyKeys.key });
  if (rows.length !== 1) throw new Error(`${rows.length} reservations hold the key ${key}`);
}

/** The stored answer of `key` past its 24 hours (what a day of waiting does, without moving the test's clock past its sessions). */
export async function expireReservation(t: TestApp, key: string): Promise<void> {
  const rows = await t.deps.database.db
    .update(idempotencyKeys)
    .set({ expiresAt: new Date(t.clock.now() - 1) })
    .where(eq(idempotencyKeys.key, key))
    .returning({ key: idempotencyKeys.key });
  if (rows.length !== 1) throw new Error(`${rows.length} reservations hold the key ${key}`);
}
