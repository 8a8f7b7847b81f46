// Issue 17: GET /api/admin/orders/export.csv — the list's filters, UTF-8 with BOM, RFC 4180 quoting,
// spreadsheet formulas in buyers' text neutralised, upsells under their order, read a page at a time,
// and another brand's orders never in it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { acceptedUpsell, CARE_PLAN, completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { orderCsv } from "./export.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t);
  rival = await registerOwner(t);
});
afterAll(() => t.close());

async function paidOrder(brandId: string, name: string, email = "ada@example.com") {
  const done = await completeCheckoutViaApi(t, { claims: { brandId }, complete: { customerEmail: email, customerName: name } });
  t.clock.advance(1_000);
  return done;
}

/** RFC 4180 as a spreadsheet reads it: quoted cells may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(cell), rows.push(row), (row = []), (cell = ""), i++;
    else cell += c;
  }
  return rows;
}

const exportCsv = (query = "", session = shop.session) => adminCall(t, "GET", `/api/admin/orders/export.csv${query}`, { session });

describe("GET /api/admin/orders/export.csv", () => {
  const HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "Plain, \"quoted\" name"];
  let orderIds: string[];
  let upsellOrderId: string;
  beforeAll(async () => {
    orderIds = [];
    for (const name of HOSTILE) orderIds.push((await paidOrder(shop.brandId, name)).orderId);
    const first = await paidOrder(shop.brandId, "Ada Lovelace", "ada.l@example.com");
    orderIds.push(first.orderId);
    ({ upsellOrderId } = await acceptedUpsell(t, first, CARE_PLAN, { customerEmail: "ada.l@example.com" }));
    await paidOrder(rival.brandId, "Rival buyer", "ada.l@example.com");
  });

  it("is a UTF-8 CSV with BOM and header, newest first, each upsell after its order, no other brand's, formulas neutralised", async () => {
    const res = await exportCsv();
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const [header, ...rows] = parseCsv(res.body.replace(/^\uFEFF/, ""));
    expect(header).toEqual(["Created (UTC)", "Order ID", "Our ID", "Kind", "Checkout order", "Status", "Amount", "Refunded", "Currency", "Provider", "Transaction ID", "Customer email", "Customer name", "Test"]);
    expect(rows.map((r) => r[1])).toEqual([orderIds[5], upsellOrderId, ...orderIds.slice(0, 5).reverse()]);
    const upsell = rows[1]!;
    expect(upsell).toMatchObject({ 3: "upsell", 4: orderIds[5], 6: "15.00", 8: "USD", 11: "ada.l@example.com" });
    expect(rows[0]).toMatchObject({ 3: "checkout", 4: "", 5: "paid", 6: (AMOUNT / 100).toFixed(2), 7: "0.00", 13: "yes" });
    expect(rows.slice(2).map((r) => r[12]).reverse()).toEqual(["'=HYPERLINK(\"http://evil.example\",\"x\")", "'+1+1", "'-2+3", "'@SUM(A1)", 'Plain, "quoted" name']);
    expect(res.body).not.toContain("Rival buyer");
  });

  it("applies the list's filters", async () => {
    const res = await exportCsv("?q=ada.l%40example.com");
    const rows = parseCsv(res.body.replace(/^\uFEFF/, "")).slice(1);
    expect(rows.map((r) => r[1])).toEqual([orderIds[5], upsellOrderId]);
    expect(parseCsv((await exportCsv("?status=refunded")).body.replace(/^\uFEFF/, ""))).toHaveLength(1); // the header only
    const bad = await exportCsv("?status=lost");
    expect(bad.statusCode).toBe(400);
    expect(json(bad)).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("is read a page at a time: every order once across page boundaries", async () => {
    let text = "";
    for await (const chunk of orderCsv(t.deps.database.db, shop.brandId, {}, 2)) text += chunk;
    const rows = parseCsv(text.replace(/^\uFEFF/, "")).slice(1);
    expect(rows.map((r) => r[1])).toEqual([orderIds[5], upsellOrderId, ...orderIds.slice(0, 5).reverse()]);
  });

  it("is open to every member of the brand, and to no one else", async () => {
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    expect((await exportCsv("", member.session)).statusCode).toBe(200);
    const anonymous = await adminCall(t, "GET", "/api/admin/orders/export.csv", {});
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous)).toMatchObject({ code: expect.any(String) });
    const rivalExport = await exportCsv("", rival.session);
    expect(rivalExport.body).toContain("Rival buyer");
    for (const orderId of orderIds) expect(rivalExport.body).not.toContain(orderId);
  });
});
