// Browser (issue 34 item 7): the Approvals page of the back office shows the approval counters that
// recordApprovalStats wrote (seeded into the embedded database before the service starts, for the
// default brand the first owner adopts): the rate, amounts and what cascades recovered, the charts
// (uPlot) and the breakdowns; the period's dates narrow it; the Live/Test switch shows the other mode's
// figures; axe finds no serious violation.
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.js";
import * as schema from "../../src/db/schema/index.js";
import { DEFAULT_BRAND_ID } from "../../src/db/schema/index.js";
import { withTransaction } from "../../src/db/transaction.js";
import { recordApprovalStats, type AttemptForStats } from "../../src/payments/approval-stats.js";
import { NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

const DAY = 86_400_000;
const dayAgo = (days: number) => new Date(Date.now() - days * DAY);
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

const attempt = (daysAgo: number, fields: Partial<AttemptForStats>): AttemptForStats => ({
  brandId: DEFAULT_BRAND_ID,
  livemode: false,
  provider: "vault_gateway_a",
  at: dayAgo(daysAgo),
  result: "approved",
  declineCode: null,
  cardBrand: "visa",
  binCountry: "US",
  amountCents: 2500,
  currency: "USD",
  recovered: false,
  ...fields,
});

/**
 * Yesterday: 3 approvals of 25.00 at vault_gateway_a (one after a soft decline: recovered), one
 * do_not_honor decline. Two days ago: 2 approvals of 75.00 at vault_gateway_b (mastercard, GB), one
 * insufficient_funds decline and one provider failure. Test mode: 5 of 7 answers approved (71.4 %),
 * 225.00 approved, 25.00 recovered. Live: one approval of 10.00 yesterday.
 */
const ATTEMPTS: AttemptForStats[] = [
  attempt(1, {}),
  attempt(1, {}),
  attempt(1, { recovered: true }),
  attempt(1, { result: "declined", declineCode: "do_not_honor" }),
  ...[0, 1].map(() => attempt(2, { provider: "vault_gateway_b", cardBrand: "mastercard", binCountry: "GB", amountCents: 7500 })),
  attempt(2, { provider: "vault_gateway_b", result: "declined", declineCode: "insufficient_funds", cardBrand: "mastercard", binCountry: "GB", amountCents: 7500 }),
  attempt(2, { provider: "vault_gateway_b", result: "failed", declineCode: "provider_timeout", amountCents: 7500 }),
  attempt(1, { livemode: true, amountCents: 1000 }),
];

async function seed(dataDir: string): Promise<void> {
  const client = new PGlite(path.join(dataDir, "pglite"));
  try {
    const db = drizzle(client, { schema }) as unknown as Db;
    for (const a of ATTEMPTS) await withTransaction(db, (tx) => recordApprovalStats(tx, a));
  } finally {
    await client.close();
  }
}

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack({}, { prepare: seed });
});
afterAll(async () => {
  await stack?.close();
});

describe.skipIf(NO_CHROMIUM)("approval analytics in Chromium", () => {
  it("shows the seeded figures, charts and breakdowns; the period narrows them; the mode switch shows live", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    const chartScripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") chartScripts.push(new URL(request.url()).pathname);
    });
    try {
      await registerInBrowser(page, stack.base, "Ava Approvals");
      const scriptsBefore = chartScripts.length;
      await page.getByRole("link", { name: "Approvals" }).click();
      await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
      // The page's own chunk (with the chart library) is fetched when it opens, not with the app.
      expect(chartScripts.length).toBeGreaterThan(scriptsBefore);

      await page.getByTestId("approvals-rate").filter({ hasText: "71.4 %" }).waitFor();
      expect(await page.getByTestId("approvals-attempts").textContent()).toBe("7");
      expect(await page.getByTestId("approvals-approved-amount").textContent()).toBe("$225.00");
      expect(await page.getByTestId("approvals-net").textContent()).toBe("$225.00");
      expect(await page.getByTestId("approvals-recovered").textContent()).toBe("$25.00 (1)");
      expect(await page.getByTestId("approvals-failed").textContent()).toBe("1");
      // uPlot drew both charts; each says its figures to a screen reader.
      expect(await page.locator("[data-testid=approvals-rate-chart] canvas").count()).toBe(1);
      expect(await page.locator("[data-testid=approvals-recovered-chart] canvas").count()).toBe(1);
      expect(await page.getByTestId("approvals-rate-chart").getAttribute("aria-label")).toBe(`Approval rate by day: ${dayOf(dayAgo(2))}: 66.7 %, ${dayOf(dayAgo(1))}: 75.0 %`);

      const provider = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Provider" }) });
      expect(await provider.getByRole("row", { name: /vault gateway a/ }).getByRole("cell").nth(2).textContent()).toBe("75.0 %");
      expect(await provider.getByRole("row", { name: /vault gateway b/ }).getByRole("cell").nth(2).textContent()).toBe("66.7 %");
      const codes = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Decline code" }) });
      for (const code of ["do_not_honor", "insufficient_funds", "provider_timeout"]) await codes.getByRole("rowheader", { name: code }).waitFor();
      const bands = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Amount band" }) });
      expect(await bands.getByRole("rowheader").allTextContents()).toEqual(["10-50", "50-100"]);
      await page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "BIN country" }) }).getByRole("rowheader", { name: "GB" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "approvals");

      // Yesterday alone.
      await page.getByLabel("From").fill(dayOf(dayAgo(1)));
      await page.getByTestId("approvals-rate").filter({ hasText: "75.0 %" }).waitFor();
      expect(await page.getByTestId("approvals-attempts").textContent()).toBe("4");

      // The Live/Test switch: the live approval only.
      await page.getByRole("radio", { name: "Live" }).check();
      await page.getByTestId("approvals-approved-amount").filter({ hasText: "$10.00" }).waitFor();
      expect(await page.getByTestId("approvals-rate").textContent()).toBe("100.0 %");
      expect(await page.getByTestId("test-banner").count()).toBe(0);
      await page.getByRole("radio", { name: "Test" }).check();
      await page.getByTestId("approvals-approved-amount").filter({ hasText: "$75.00" }).waitFor();
    } finally {
      await page.close();
    }
  });
});
