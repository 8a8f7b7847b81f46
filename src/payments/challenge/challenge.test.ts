// 3-D Secure at the intent gateway in demo mode (docs/providers.md "3-D Secure"): the 3-D Secure test
// card leaves the intent `requires_action` with the demo bank's page as nextAction; Approve pays once
// (twice, or twice at once, still one charge), Fail is a recorded decline; a forged intent id or
// secret, or another intent's secret, changes nothing.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { card, post } from "../../../test/support/provider-payments.js";
import { demoProviderRecords, orderCharges, orders, paymentDeclines } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const THREE_DS = "4000000000003220";
const RETURN = "/checkout/header.payload.signature";

/** A checkout at the intent gateway confirmed with the 3-D Secure card: its intent and the demo bank's page. */
async function challenged() {
  const claims = orderClaims({ amount: 2500, currency: "EUR" });
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway" });
  expect(init.statusCode, init.body).toBe(200);
  expect(json(init).demo).toBe(true);
  const intentId = json(init).providerOrderId as string;
  const confirmed = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId, ...card(THREE_DS), returnUrl: RETURN });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const body = json(confirmed);
  expect(body).toMatchObject({ status: "requires_action", paymentIntentId: intentId, nextAction: { type: "redirect_to_url" } });
  const page = new URL(body.nextAction.url);
  expect(page.pathname).toMatch(new RegExp(`^/demo/intent-gateway/3ds/${intentId}/[A-Za-z0-9_-]{20,}$`));
  return { orderId: claims.orderId as string, intentId, path: page.pathname };
}

const answer = (path: string, outcome: string) =>
  t.app.inject({ method: "POST", url: path, payload: `outcome=${outcome}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
const read = (intentId: string) => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId });
const complete = (orderId: string, intentId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: 2500, currency: "EUR" });
const intentRow = async (id: string) => (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.id, id)))[0]!;
const chargesOf = (orderId: string) => t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId));

describe("3-D Secure challenge (demo bank)", () => {
  it("shows the bank's page with Approve and Fail, then Approve pays once and returns to the checkout, which completes", async () => {
    const { orderId, intentId, path } = await challenged();
    const page = await t.app.inject({ method: "GET", url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.body).toContain("€25.00");
    expect(page.body).toContain(">Approve</button>");
    expect(page.body).toContain(">Fail</button>");

    const approved = await answer(path, "approve");
    expect(approved.statusCode, approved.body).toBe(303);
    expect(approved.headers.location).toBe(`${RETURN}?payment_intent=${intentId}&redirect_status=succeeded`);
    expect(json(await read(intentId))).toMatchObject({ status: "succeeded", paymentIntentId: intentId });

    // Approving again (a double click, the back button): the same answer, no second charge.
    const again = await answer(path, "approve");
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(approved.headers.location);
    // A Fail after the approval changes nothing either.
    expect((await answer(path, "fail")).headers.location).toContain("redirect_status=succeeded");
    expect((await intentRow(intentId)).status).toBe("succeeded");
    const charges = await chargesOf(orderId);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.state).toBe("paid");

    const done = await complete(orderId, intentId);
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done).paymentMethodToken).toMatch(/^pm_demo_.+\|cus_demo_.+$/);
    expect(await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId))).toHaveLength(1);
    // After the order is paid the page is gone.
    expect((await t.app.inject({ method: "GET", url: path })).statusCode).toBe(404);
  });

  it("two approvals at the same instant charge once", async () => {
    const { orderId, intentId, path } = await challenged();
    const answers = await Promise.all([answer(path, "approve"), answer(path, "approve"), answer(path, "approve")]);
    for (const a of answers) expect([303, 409], a.body).toContain(a.statusCode);
    expect(answers.some((a) => a.statusCode === 303)).toBe(true);
    expect((await intentRow(intentId)).status).toBe("succeeded");
    expect(await chargesOf(orderId)).toHaveLength(1);
  });

  it("Fail is a decline the checkout shows (402 authentication_failed), recorded once; a later Approve changes nothing", async () => {
    const { orderId, intentId, path } = await challenged();
    const failed = await answer(path, "fail");
    expect(failed.statusCode).toBe(303);
    expect(failed.headers.location).toBe(`${RETURN}?payment_intent=${intentId}&redirect_status=failed`);
    const outcome = await read(intentId);
    expect(outcome.statusCode).toBe(402);
    expect(json(outcome)).toMatchObject({ code: "PAYMENT_FAILED", details: "authentication_failed" });
    expect((await answer(path, "approve")).headers.location).toContain("redirect_status=failed");
    expect((await answer(path, "fail")).headers.location).toContain("redirect_status=failed");
    expect((await intentRow(intentId)).status).toBe("failed");
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId))).toHaveLength(1);
    expect(await chargesOf(orderId)).toHaveLength(0);
    expect((await complete(orderId, intentId)).statusCode).toBe(400);
  });

  it("a forged intent id, a forged secret or another intent's secret is 404 and changes nothing", async () => {
    const first = await challenged();
    const second = await challenged();
    const [, , , , id, secret] = first.path.split("/");
    const [, , , , otherId, otherSecret] = second.path.split("/");
    for (const forged of [
      `/demo/intent-gateway/3ds/pi_demo_forged/${secret}`,
      `/demo/intent-gateway/3ds/${id}/${secret!.slice(0, -2)}xx`,
      `/demo/intent-gateway/3ds/${id}/${otherSecret}`,
      `/demo/intent-gateway/3ds/${otherId}/${secret}`,
    ]) {
      const res = await answer(forged, "approve");
      expect(res.statusCode, forged).toBe(404);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect((await t.app.inject({ method: "GET", url: forged })).statusCode).toBe(404);
    }
    expect((await intentRow(first.intentId)).status).toBe("requires_action");
    expect((await intentRow(second.intentId)).status).toBe("requires_action");
    expect(await chargesOf(first.orderId)).toHaveLength(0);
  });

  it("refuses an unknown outcome and a return URL that is not this service's checkout page", async () => {
    const { path, intentId } = await challenged();
    expect((await answer(path, "maybe")).statusCode).toBe(400);
    for (const returnUrl of ["https://evil.example/checkout/x", "//evil.example/x", "/admin", "/checkout/"]) {
      const res = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId, ...card(THREE_DS), returnUrl });
      expect(res.statusCode, returnUrl).toBe(400);
    }
  });

  it("the other providers' 3-D Secure card stays a decline", async () => {
    const claims = orderClaims({ amount: 2500, currency: "EUR" });
    await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_b" });
    const res = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: claims.orderId, amount: 2500, currency: "EUR", ...card(THREE_DS) });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ code: "PAYMENT_FAILED", details: "authentication_required" });
  });
});
