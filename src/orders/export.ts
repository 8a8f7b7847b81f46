import { Readable } from "node:stream";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { readMode } from "../payments/mode.js";
import { decimalAmount } from "../lib/money.js";
import { statusOf } from "./orders.js";
import type { OrderExportQuery } from "./schemas.js";
import { findUpsellsOf, orderPageQuery, type OrderCursor, type OrderRow } from "./store.js";

/** Orders read per query: memory stays constant however many orders the export holds. */
export const EXPORT_PAGE = 500;

const COLUMNS = ["Created (UTC)", "Order ID", "Our ID", "Kind", "Checkout order", "Status", "Amount", "Refunded", "Currency", "Provider", "Transaction ID", "Customer email", "Customer name", "Test"];

/**
 * One RFC 4180 cell. A cell a spreadsheet would read as a formula (starting with =, +, -, @, or a tab or
 * carriage return that some programs skip before one) gets a leading apostrophe: a buyer's name such as
 * `=HYPERLINK(…)` stays text (OWASP "CSV injection"). Amounts are never negative, so no number is touched.
 */
export function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function line(row: OrderRow, checkout: OrderRow): string {
  const cells = [
    row.createdAt.toISOString(),
    row.orderId,
    row.id,
    row.kind,
    row === checkout ? "" : checkout.orderId,
    statusOf(row),
    decimalAmount(row.amountCents, row.currency),
    decimalAmount(row.refundedCents, row.currency),
    row.currency,
    row.provider,
    row.transactionId,
    checkout.customerEmail,
    checkout.customerName,
    checkout.paidInDemo === true ? "yes" : "no",
  ];
  return cells.map(csvCell).join(",") + "\r\n";
}

/** The export's text, a page of orders at a time: a UTF-8 BOM and the header, then each checkout order followed by its upsells. */
export async function* orderCsv(db: Db, brandId: string, filters: OrderExportQuery, pageSize = EXPORT_PAGE): AsyncGenerator<string> {
  yield "\uFEFF" + COLUMNS.map(csvCell).join(",") + "\r\n";
  let after: OrderCursor | null = null;
  for (;;) {
    const rows = await orderPageQuery(db, brandId, { ...filters, limit: pageSize }, after);
    const page = rows.slice(0, pageSize);
    const upsells = await findUpsellsOf(db, brandId, page.map((row) => row.id));
    let chunk = "";
    for (const row of page) {
      chunk += line(row, row);
      for (const upsell of upsells) if (upsell.parentOrderId === row.id) chunk += line(upsell, row);
    }
    if (chunk) yield chunk;
    if (rows.length <= pageSize) return;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt.getTime(), id: last.id };
  }
}

/**
 * `GET /api/admin/orders/export.csv`: any member, the session's brand, the list's filters. Access is
 * checked before the first byte, so a refusal is still a JSON error; the body is then streamed.
 */
export async function exportOrders({ ctx, input }: { ctx: Ctx; input: OrderExportQuery }): Promise<Readable> {
  const brandId = await brandOfScope(ctx.db, assertRole(ctx, "member"));
  // One mode per file (CONTRACT §39): the one asked for, else the brand's.
  const livemode = await readMode(ctx, brandId, input.livemode);
  return Readable.from(orderCsv(ctx.db, brandId, { ...input, livemode }));
}
