import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { completeFirstFactor } from "./complete-login.js";
import { accountLocked, invalidCredentials, missingRequiredFields, tooManyAttempts } from "./errors.js";
import { verifyPassword } from "./password.js";
import { ADDRESS_FAILURES, ADDRESS_WINDOW_MS, LOCK_DURATION_MS, LOCK_FAILURES, LOCK_WINDOW_MS } from "./policy.js";
import { normalizeEmail } from "./register.js";
import type { LoginOutcome } from "./sessions.js";
import type { RedisLoginThrottle } from "./throttle.js";
import { countRecentFailuresForAddress, countRecentFailuresForEmail, findLock, findUserByEmail, recordLoginAttempt, upsertLock } from "./store.js";

export interface PasswordLoginInput {
  email: string;
  password: string;
}

/**
 * `POST /api/admin/auth`. Unknown email and wrong password give the same error after the same
 * work (one argon2id verify, against a dummy hash when there is no user). Brute force (CONTRACT
 * §23): ten failures for one email in 15 minutes lock password login for it for 30 minutes;
 * too many failures from one client address are refused too. Locks apply to unknown emails
 * alike, so a lock reveals nothing about which accounts exist.
 *
 * With `throttle` (REDIS_URL set) the counters live in Redis, shared by every instance; whenever
 * Redis cannot be reached the database counters decide instead. Attempts are always written to
 * `login_attempts` and locks to `login_locks`, so the fallback starts from the real history.
 */
export async function loginWithPassword({ ctx, input, throttle }: { ctx: Ctx; input: PasswordLoginInput; throttle?: RedisLoginThrottle | null }): Promise<LoginOutcome> {
  const email = normalizeEmail(input.email);
  if (!email || !input.password) throw missingRequiredFields();
  const now = ctx.clock.now();
  const db = ctx.db;
  const address = ctx.clientAddress ?? null;

  const refuse = async (error: AppError, details: Record<string, unknown>) => {
    await withTransaction(db, (tx) => recordAudit(tx, ctx, { action: "user.throttle", resourceType: "user", resourceId: null, success: false, details }));
    throw error;
  };
  const lockedUntil = await findLock(db, email);
  const lockMs = Math.max((await throttle?.lockRemainingMs(email)) ?? 0, lockedUntil ? lockedUntil.getTime() - now : 0);
  if (lockMs > 0) {
    await refuse(accountLocked(Math.ceil(lockMs / 1000)), { reason: "account_locked", email });
  }
  if (address) {
    const failures = (throttle ? await throttle.addressFailures(address) : undefined) ?? (await countRecentFailuresForAddress(db, address, new Date(now - ADDRESS_WINDOW_MS)));
    if (failures >= ADDRESS_FAILURES) await refuse(tooManyAttempts(), { reason: "address_limit", email });
  }

  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(user?.passwordHash, input.password);

  if (!ok) {
    // Redis counts when reachable; `undefined` means the database counts below.
    const counted = throttle ? await throttle.recordFailure(email, address) : undefined;
    await withTransaction(db, async (tx) => {
      await recordLoginAttempt(tx, { id: newId("la"), email, ipAddress: address, success: false, createdAt: new Date(now) });
      await recordAudit(tx, ctx, { action: "user.login", resourceType: "user", resourceId: user?.id ?? null, actorId: user?.id ?? null, success: false, details: { method: "password", email } });
      const reachedLimit = counted ? counted.locked : (await countRecentFailuresForEmail(tx, email, new Date(now - LOCK_WINDOW_MS))) >= LOCK_FAILURES;
      if (reachedLimit) {
        await upsertLock(tx, email, new Date(now + LOCK_DURATION_MS), new Date(now));
        await recordAudit(tx, ctx, { action: "user.lock", resourceType: "user", resourceId: user?.id ?? null, actorId: null, success: true, details: { email, lockedMinutes: LOCK_DURATION_MS / 60_000 } });
      }
    });
    // CONTRACT §23 (issue 16 departure 3): the tenth failure is answered like the nine before; the lock it set applies from the next attempt.
    throw invalidCredentials();
  }

  await throttle?.recordSuccess(email);
  return withTransaction(db, async (tx) => {
    await recordLoginAttempt(tx, { id: newId("la"), email, ipAddress: address, success: true, createdAt: new Date(now) });
    return completeFirstFactor(tx, ctx, user!, "password");
  });
}
