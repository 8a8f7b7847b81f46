// Browser (issue 17): a chargeback the vault gateway notifies shows in the order's detail; the owner keeps
// evidence for it and accepts it. Axe finds no serious violation.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, checkoutToken, NO_CHROMIUM, registerInBrowser, screenshot, seriousViolations, startStack, type Stack } from "./support.js";

let stack: Stack;
beforeAll(async () => {
  if (NO_CHROMIUM) return;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const SECRET = "nmi-e2e-dispute-signing-key-0123";

/** A checkout of the brand paid at vault_gateway_b and completed; its transaction id. */
async function paidOrder(brandId: string, orderId: string): Promise<string> {
  const claims = { orderId, amount: 2500, currency: "USD", productName: "Tea set", brandId };
  expect((await api(stack.base, "/api/checkout/initialize", { token: await checkoutToken(claims), provider: "vault_gateway_b" })).status).toBe(200);
  const paid = await api(stack.base, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: 2500, currency: "USD", cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" });
  const done = await api(stack.base, "/api/checkout/complete", { orderId, transactionId: paid.body.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada Lovelace", amount: 2500, currency: "USD" });
  expect(done.status).toBe(200);
  return paid.body.transactionId;
}

describe.skipIf(NO_CHROMIUM)("Disputes on the Orders page in Chromium", () => {
  it("shows a notified chargeback in the order's detail, keeps evidence for it and accepts it", async () => {
    const page = await stack.browser.newPage({ locale: "en-US" });
    try {
      await registerInBrowser(page, stack.base, "Dora Disputes");
      const brandId = await page.evaluate(async (secret) => {
        const saved = await fetch("/api/admin/settings", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ provider: "vault_gateway_b", settings: { webhookSecret: secret } }) });
        if (saved.status !== 200) throw new Error(`settings answered ${saved.status}`);
        return ((await (await fetch("/api/admin/auth")).json()) as { session: { brandId: string } }).session.brandId;
      }, SECRET);
      const orderId = `e2e-dsp-${Date.now()}`;
      const transactionId = await paidOrder(brandId, orderId);

      // The gateway's chargeback notification, signed as NMI signs it.
      const body = JSON.stringify({ event_id: `evt-${orderId}`, event_type: "chargeback.batch.complete", event_body: { chargebacks: [{ id: `cb-${orderId}`, transaction_id: transactionId, amount: "25.00", reason: "Item not received" }] } });
      const signature = createHmac("sha256", SECRET).update(`n1.${body}`).digest("hex");
      const notified = await fetch(`${stack.base}/api/webhooks/vault_gateway_b`, { method: "POST", headers: { "content-type": "application/json", "webhook-signature": `t=n1,s=${signature}` }, body });
      expect(notified.status).toBe(200);

      await page.getByRole("link", { name: "Orders" }).click();
      await page.getByLabel("Status").selectOption("disputed");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("button", { name: `Open order ${orderId}`, exact: true }).click();
      const disputes = page.getByRole("region", { name: "Disputes" });
      await disputes.waitFor();
      expect(await disputes.textContent()).toContain("$25.00");
      expect(await disputes.textContent()).toContain("Item not received: needs response");
      expect(await seriousViolations(page)).toEqual([]);

      await disputes.getByLabel("Evidence", { exact: true }).fill("Delivered 2026-11-20, signed for.");
      await disputes.getByRole("button", { name: "Submit evidence" }).click();
      await disputes.getByText("Evidence kept here: this provider takes none through its API.").waitFor();
      await disputes.getByText(/Evidence kept .*: Delivered 2026-11-20, signed for\./).waitFor();

      await disputes.getByLabel("Give up $25.00 to the buyer").check();
      await disputes.getByRole("button", { name: "Accept dispute" }).click();
      await disputes.getByText("Dispute accepted.").waitFor();
      await disputes.getByText("Item not received: accepted").waitFor();
      expect(await disputes.getByRole("button", { name: "Accept dispute" }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "orders-disputes");
    } finally {
      await page.close();
    }
  });
});
