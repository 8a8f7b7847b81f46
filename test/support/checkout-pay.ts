import { and, eq, sql } from "drizzle-orm";
import { outboxEvents, paymentAttempts, paymentDeclines } from "../../src/db/schema/index.js";
import type { TestApp } from "./app.js";
import { AMOUNT, customer, post } from "./provider-payments.js";

/** Shared by the checkout pay tests (issue 34): complete with what the pay answered, and what a pay left in our tables. */

/** /api/checkout/complete naming the provider, transaction and provider order the pay answered (an AMOUNT order). */
export const completePaid = (t: TestApp, orderId: string, paid: { provider: string; transactionId: string; providerOrderId: string }) =>
  post(t, "/api/checkout/complete", {
    orderId,
    provider: paid.provider,
    transactionId: paid.transactionId,
    providerOrderId: paid.providerOrderId,
    customerEmail: customer.email,
    customerName: "Ada Lovelace",
    amount: AMOUNT,
    currency: "USD",
  });

/** The order's payment attempts (cascade order), its decline records and its payment.failed events; `app` is read at each call (test files build theirs in beforeAll). */
export function payRecords(app: () => TestApp) {
  const db = () => app().deps.database.db;
  return {
    attemptsOf: (orderId: string) => db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId)).orderBy(paymentAttempts.cascadeIndex),
    declinesOf: (orderId: string) => db().select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId)),
    failedEventsOf: (orderId: string) =>
      db().select().from(outboxEvents).where(and(eq(outboxEvents.type, "payment.failed"), sql`${outboxEvents.payload}->>'orderId' = ${orderId}`)),
  };
}
