// Issue 34 "Tests": the cascade on every ordered pair of card-taking providers in demo mode, through
// HTTP. A brand per case routes `first` then `second` (a saved best_of rule naming the two, exploration
// off: a brand without approval data keeps the rule's order; the brand enables only those two).
// (a) every pair: a card that soft-declines at `first` only is charged once at `second` and the order
//     completes there;
// (b) every hard test card at every provider first (each of the six as `first`, with a rotating
//     `second`): 402 with the hard decline, one attempt, `second` never asked;
// (c) the everywhere-soft card on six pairs (each provider once first, once second): 402 after both,
//     one decline record, one payment.failed listing both attempts.
// (b) and (c) take a representative subset of the 30 pairs to keep the run short: whether a decline
// moves on depends on the decline and on `first`, never on which provider would have come next.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner } from "../../../test/support/admin.js";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call } from "../../../test/support/identity.js";
import { address, card, customer, post } from "../../../test/support/provider-payments.js";
import { completePaid, payRecords } from "../../../test/support/checkout-pay.js";
import { demoProviderRecords, providerSettings } from "../../db/schema/index.js";
import { ORCHESTRATION_TEST_CARDS, SOFT_DECLINE_AT, TEST_CARDS, type CardTakingDemoProvider } from "../../providers/demo/cards.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const PROVIDERS: CardTakingDemoProvider[] = ["vault_gateway_a", "vault_gateway_b", "order_crm_a", "order_crm_b", "cart_gateway", "intent_gateway"];
const PAIRS = PROVIDERS.flatMap((first) => PROVIDERS.filter((second) => second !== first).map((second) => [first, second] as const));
const AMOUNT = 1000;
const EVERYWHERE_SOFT = TEST_CARDS.declined;
const HARD_CARDS = [
  { code: "lost_or_stolen", cardNumber: ORCHESTRATION_TEST_CARDS.lostOrStolen },
  { code: "incorrect_cvc", cardNumber: ORCHESTRATION_TEST_CARDS.incorrectCvc },
  { code: "insufficient_funds", cardNumber: TEST_CARDS.insufficientFunds },
] as const;
/** Each provider first once, each second once (a rotation): six of the thirty pairs. */
const ROTATION = PROVIDERS.map((first, i) => [first, PROVIDERS[(i + 1) % PROVIDERS.length]!] as const);

const db = () => t.deps.database.db;
let sequence = 0;
/** A fresh client address per case, so the card-testing limit (§21) counts only the case's own declines. */
const freshAddress = () => `10.35.${Math.floor(++sequence / 250)}.${sequence % 250}`;

/** A new brand that enables `first` and `second` only and routes `first` then `second` (the rule's reason names why). */
async function brandRouting(first: CardTakingDemoProvider, second: CardTakingDemoProvider) {
  const owner = await registerOwner(t, `Matrix ${first} ${second} ${++sequence}`);
  const now = new Date(t.clock.now());
  for (const provider of [first, second]) await db().insert(providerSettings).values({ brandId: owner.brandId, provider, enabled: true, publicValues: {}, updatedAt: now });
  const rule = { id: "rul_matrix", name: "Matrix pair", conditions: {}, target: { type: "best_of", providers: [first, second], explorationPercent: 0 } };
  const saved = await call(t, "PUT", "/api/admin/routing", { session: owner.session, body: { livemode: false, brandId: owner.brandId, rules: [rule], maxProviders: 2 } });
  expect(saved.statusCode, saved.body).toBe(200);
  return owner.brandId;
}

/** An order's checkout initialized as the page does: with the first provider /api/checkout/providers lists. */
async function initialized(brandId: string) {
  const order = orderClaims({ brandId, amount: AMOUNT, currency: "USD" });
  const token = await signToken(t, order);
  const listed = await post(t, "/api/checkout/providers", { token });
  expect(listed.statusCode, listed.body).toBe(200);
  const response = await post(t, "/api/checkout/initialize", { token, provider: listed.json().providers[0] });
  expect(response.statusCode, response.body).toBe(200);
  return order.orderId as string;
}

const pay = (orderId: string, cardNumber: string) =>
  post(t, "/api/checkout/pay", { orderId, ...card(cardNumber), customer, billingAddress: address }, { remoteAddress: freshAddress(), headers: { "content-type": "application/json" } });

const { attemptsOf, declinesOf, failedEventsOf } = payRecords(() => t);
const complete = (orderId: string, paid: { provider: string; transactionId: string; providerOrderId: string }) => completePaid(t, orderId, paid);

/** The demo providers' ledger rows of the order: what each provider was asked and what it did. */
const ledgerOf = (orderId: string) => db().select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), sql`${demoProviderRecords.kind} in ('charge', 'payment_intent')`));
const REASON = /^Rule "Matrix pair": /;

describe("(a) a soft decline at the first provider only: charged once at the second, every ordered pair", () => {
  it.each(PAIRS)("%s then %s", async (first, second) => {
    const brandId = await brandRouting(first, second);
    const orderId = await initialized(brandId);
    const { card: cardNumber, reason } = SOFT_DECLINE_AT[first];

    const response = await pay(orderId, cardNumber);
    expect(response.statusCode, response.body).toBe(200);
    const paid = response.json();
    expect(paid).toMatchObject({
      status: "succeeded",
      provider: second,
      orderId,
      demo: true,
      attempts: [
        { provider: first, result: "declined", declineCode: reason },
        { provider: second, result: "approved", declineCode: null },
      ],
    });
    expect(paid.attempts).toHaveLength(2);

    const attempts = await attemptsOf(orderId);
    expect(attempts.map(({ provider, result, declineCode, declineClass, cascadeIndex, ruleId, ruleName }) => ({ provider, result, declineCode, declineClass, cascadeIndex, ruleId, ruleName }))).toEqual([
      { provider: first, result: "declined", declineCode: reason, declineClass: "soft", cascadeIndex: 0, ruleId: "rul_matrix", ruleName: "Matrix pair" },
      { provider: second, result: "approved", declineCode: null, declineClass: null, cascadeIndex: 1, ruleId: "rul_matrix", ruleName: "Matrix pair" },
    ]);
    for (const attempt of attempts) expect(attempt.routeReason).toMatch(REASON);
    expect(attempts[1]!.transactionId).toBe(paid.transactionId);

    const done = await complete(orderId, paid);
    expect(done.statusCode, done.body).toBe(200);
    // Exactly one charge: one succeeded ledger row, at the second provider; the first kept only its decline.
    const ledger = await ledgerOf(orderId);
    expect(ledger.filter((row) => row.status === "succeeded").map((row) => row.provider)).toEqual([second]);
    expect(ledger.filter((row) => row.provider === first).map((row) => row.status)).toEqual(["failed"]);
    expect(await declinesOf(orderId)).toHaveLength(0);
    expect(await failedEventsOf(orderId)).toHaveLength(0);
    // Paid and completed: never charged again.
    const again = await pay(orderId, "4242424242424242");
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "ALREADY_PAID" });
    expect((await ledgerOf(orderId)).filter((row) => row.status === "succeeded")).toHaveLength(1);
  });
});

describe("(b) a hard decline at the first provider: 402, one attempt, the second never asked", () => {
  const cases = ROTATION.flatMap(([first, second]) => HARD_CARDS.map(({ code, cardNumber }) => [first, second, code, cardNumber] as const));
  it.each(cases)("%s then %s: %s", async (first, second, code, cardNumber) => {
    const brandId = await brandRouting(first, second);
    const orderId = await initialized(brandId);

    const response = await pay(orderId, cardNumber);
    expect(response.statusCode, response.body).toBe(402);
    expect(response.json()).toMatchObject({ code: "PAYMENT_FAILED", details: code, declineCode: code, declineClass: "hard" });
    expect((await attemptsOf(orderId)).map(({ provider, result, declineCode, declineClass, ruleName }) => ({ provider, result, declineCode, declineClass, ruleName }))).toEqual([
      { provider: first, result: "declined", declineCode: code, declineClass: "hard", ruleName: "Matrix pair" },
    ]);
    const ledger = await ledgerOf(orderId);
    // The second provider never saw the card (an intent the page initialized there stays unconfirmed).
    expect(ledger.filter((row) => row.provider === second && (row.cardLast4 !== null || row.status !== "requires_payment_method"))).toEqual([]);
    expect(ledger.filter((row) => row.status === "succeeded")).toEqual([]);
    expect(await declinesOf(orderId)).toHaveLength(1);
    const events = await failedEventsOf(orderId);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ orderId, provider: first, reason: code, attempts: [{ provider: first, result: "declined", declineCode: code }] });
  });
});

describe("(c) a soft decline everywhere: 402 after both providers, counted once", () => {
  it.each(ROTATION)("%s then %s", async (first, second) => {
    const brandId = await brandRouting(first, second);
    const orderId = await initialized(brandId);

    const response = await pay(orderId, EVERYWHERE_SOFT);
    expect(response.statusCode, response.body).toBe(402);
    expect(response.json()).toMatchObject({ code: "PAYMENT_FAILED", details: "card_declined", declineCode: "card_declined", declineClass: "soft" });
    expect((await attemptsOf(orderId)).map(({ provider, result, declineCode, declineClass, cascadeIndex }) => ({ provider, result, declineCode, declineClass, cascadeIndex }))).toEqual([
      { provider: first, result: "declined", declineCode: "card_declined", declineClass: "soft", cascadeIndex: 0 },
      { provider: second, result: "declined", declineCode: "card_declined", declineClass: "soft", cascadeIndex: 1 },
    ]);
    expect((await ledgerOf(orderId)).filter((row) => row.status === "succeeded")).toEqual([]);
    expect(await declinesOf(orderId)).toHaveLength(1);
    const events = await failedEventsOf(orderId);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      orderId,
      provider: second,
      reason: "card_declined",
      attempts: [
        { provider: first, result: "declined", declineCode: "card_declined" },
        { provider: second, result: "declined", declineCode: "card_declined" },
      ],
    });
    expect((events[0]!.payload as { attempts: unknown[] }).attempts).toHaveLength(2);
  });
});
