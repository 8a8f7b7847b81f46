import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { queueMails, type OutgoingMail } from "../identity/mail.js";
import type { Job } from "../jobs/runner.js";
import type { EventPayloads } from "../outbox/events.js";
import { renderReceipt, type Receipt } from "./render.js";
import { chargeRefKey, claimReceiptEvents, markReceiptsHandled, receiptAddresses, receiptBrands, teamAddresses, type ChargeRef } from "./store.js";

const BATCH = 50;

type ReceiptEventRow = { brandId: string; type: string; payload: unknown; livemode: boolean };

/** The charge an upsell or refund receipt follows: its buyer's address is on the order row. */
function chargeOf(event: ReceiptEventRow): ChargeRef | null {
  if (event.type === "order.confirmed") return null;
  const data = event.payload as EventPayloads["upsell.accepted"] | EventPayloads["refund.succeeded"];
  return { brandId: event.brandId, transactionId: data.transactionId, orderId: data.orderId };
}

/** The receipt an event calls for, and the buyer it is for; null when no buyer address is known. */
function receiptOf(event: ReceiptEventRow, addresses: Map<string, string>): { to: string; receipt: Receipt } | null {
  if (event.type === "order.confirmed") {
    const data = event.payload as EventPayloads["order.confirmed"];
    const lines = data.lineItems.map((item) => ({ name: item.name ?? item.id, quantity: item.quantity, unitPrice: item.unitPrice }));
    return { to: data.customerEmail, receipt: { kind: "order", orderId: data.orderId, customerName: data.customerName, amount: data.amount, currency: data.currency, lines } };
  }
  const to = addresses.get(chargeRefKey(chargeOf(event)!));
  if (!to) return null;
  if (event.type === "upsell.accepted") {
    const data = event.payload as EventPayloads["upsell.accepted"];
    const lines = [{ name: data.offerName, quantity: 1, unitPrice: data.amount }];
    return { to, receipt: { kind: "upsell", orderId: data.orderId, originalOrderId: data.originalOrderId, amount: data.amount, currency: data.currency, lines } };
  }
  const data = event.payload as EventPayloads["refund.succeeded"];
  return { to, receipt: { kind: "refund", orderId: data.orderId, amount: data.amount, currency: data.currency, refundedTotal: data.refundedTotal } };
}

/**
 * One pass: the oldest events still waiting for a receipt become mails in the outbox, and are marked
 * handled in the same transaction, so each receipt is queued exactly once whichever process runs the
 * pass. A brand with receipts switched off has its events marked without a mail. Resolves with the
 * number of mails queued and whether more events may wait.
 *
 * Issue 33: a test order's receipt (an event with livemode false) never goes to the buyer's address:
 * it goes to the brand's team (its organization's owners and admins, and the brand's admins), marked
 * TEST in its subject and first lines, or nowhere when the brand has no team address.
 */
export async function queueReceipts(db: Db, now: number): Promise<{ queued: number; more: boolean }> {
  return withTransaction(db, async (tx) => {
    const events = await claimReceiptEvents(tx, BATCH);
    if (events.length === 0) return { queued: 0, more: false };
    const brands = await receiptBrands(tx, [...new Set(events.map((e) => e.brandId))]);
    const sent = events.filter((event) => brands.get(event.brandId)?.receiptsEnabled);
    // The buyers' addresses of the batch's upsells and refunds in one statement (one per event was a
    // statement per accepted upsell).
    const addresses = await receiptAddresses(tx, sent.map(chargeOf).filter((key) => key !== null));
    const teams = await teamAddresses(tx, [...new Set(sent.filter((e) => !e.livemode).map((e) => e.brandId))]);
    const mails: OutgoingMail[] = [];
    for (const event of sent) {
      const brand = brands.get(event.brandId)!;
      const due = receiptOf(event, addresses);
      if (!due) continue;
      const shown = { name: brand.name, logoUrl: brand.style?.logoUrl, color: brand.style?.color, supportEmail: brand.supportEmail };
      const from = { fromName: brand.name, replyTo: brand.supportEmail ?? undefined };
      if (event.livemode) {
        mails.push({ to: due.to, ...renderReceipt(shown, due.receipt), ...from });
        continue;
      }
      const mail = renderReceipt(shown, due.receipt, { buyer: due.to });
      for (const to of teams.get(event.brandId) ?? []) mails.push({ to, ...mail, ...from });
    }
    // The batch's mails in one statement: one per mail was most of a completion's background cost.
    await queueMails(tx, now, mails);
    await markReceiptsHandled(tx, events.map((e) => e.id), new Date(now));
    return { queued: mails.length, more: events.length === BATCH };
  });
}

/** The runner's `receipts` job, every 2 s: a queued receipt wakes the mail job (`kickMail`) so the buyer gets it at once. */
export function receiptsJob(db: Db, kickMail: () => void): Job {
  return {
    name: "receipts",
    everyMs: 2_000,
    run: async ({ clock }) => {
      const { queued, more } = await queueReceipts(db, clock.now());
      if (queued > 0) kickMail();
      return more;
    },
  };
}
