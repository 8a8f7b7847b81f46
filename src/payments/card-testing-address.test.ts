// Issue 36 item 7: the card-testing limit of a client address counts distinct declined cards
// (DECLINE_ADDRESS_CARD_LIMIT, 10 by default), so a shared address (an office, a carrier's NAT) is not
// blocked by its honest buyers' declines, while a card tester cycling cards is still stopped. The
// per-checkout limit (DECLINE_LIMIT, 5 declines per orderId) is unchanged. Live mode against the fake
// vault_gateway_a server (the network boundary): it declines whichever numbers a test gives it, as many
// distinct declined cards as a tester would bring.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { card, post } from "../../test/support/provider-payments.js";
import { paymentDeclines } from "../db/schema/index.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

const AMOUNT = 1050;
const TOO_MANY = { error: "Too many declined payments, try again later", code: "TOO_MANY_DECLINES", retryAfterSeconds: 600 };

/** A Luhn-valid 16-digit number: `prefix` (15 digits) and its check digit. */
function luhn(prefix: string): string {
  let sum = 0;
  for (let i = 0; i < prefix.length; i++) {
    let digit = Number(prefix[prefix.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return prefix + String((10 - (sum % 10)) % 10);
}
/** Distinct cards of a series: `series` (2 digits) tells the test's groups of cards apart. */
const cardsOf = (series: string, n: number) => Array.from({ length: n }, (_, i) => luhn(`41111${series}${String(i).padStart(8, "0")}`));

let t: TestApp;
let fake: FakeVaultGateway;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  const owner = await registerOwner(t);
  brandId = owner.brandId;
  const saved = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

/** A buyer's checkout on the brand (live vault_gateway_a): its orderId. */
async function checkout(): Promise<string> {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const response = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_a" });
  expect(response.statusCode, response.body).toBe(200);
  return claims.orderId as string;
}
const pay = (orderId: string, cardNumber: string, remoteAddress: string) =>
  post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card(cardNumber) }, { remoteAddress });
const saleCalls = () => fake.requests.filter((r) => r.path.endsWith("transact.php")).length;
/** Lets the previous test's declines leave the window. */
const nextWindow = () => t.clock.advance(601_000);

describe("card-testing limit per client address (distinct cards)", () => {
  it("stops a tester cycling different cards from one address at DECLINE_ADDRESS_CARD_LIMIT (10), before the provider", async () => {
    nextWindow();
    const address = "10.36.7.1";
    const tester = cardsOf("01", 12);
    for (const number of tester) fake.declineCards.add(number);
    for (const number of tester.slice(0, 10)) expect((await pay(await checkout(), number, address)).statusCode).toBe(402);
    const calls = saleCalls();
    for (const number of tester.slice(10)) {
      const blocked = await pay(await checkout(), number, address);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toMatchObject(TOO_MANY);
    }
    // A good card on a new checkout from the address waits too: the provider saw none of these.
    expect((await pay(await checkout(), "4242424242424242", address)).statusCode).toBe(429);
    expect(saleCalls()).toBe(calls);
    // Another address is not affected.
    expect((await pay(await checkout(), "4242424242424242", "10.36.7.2")).statusCode).toBe(200);
  });

  it("counts one buyer's declined card once: retrying it does not block the address's other buyers, only its own order (DECLINE_LIMIT)", async () => {
    nextWindow();
    const address = "10.36.7.10";
    const [declined] = cardsOf("02", 1) as [string];
    const spaced = declined.replace(/(\d{4})(?=\d)/g, "$1 ");
    fake.declineCards.add(declined).add(spaced);
    const retrier = await checkout();
    // Typed with spaces or without: one card.
    for (let i = 0; i < 5; i++) expect((await pay(retrier, i % 2 ? spaced : declined, address)).statusCode).toBe(402);
    // The per-order limit still applies to the retrying buyer's own order.
    const own = await pay(retrier, "4242424242424242", address);
    expect(own.statusCode).toBe(429);
    expect(own.json()).toMatchObject(TOO_MANY);
    // The same card on new checkouts, many times more: still one card for the address.
    for (let i = 0; i < 10; i++) expect((await pay(await checkout(), declined, address)).statusCode).toBe(402);
    // 15 declines from the address, one card: other buyers there pay.
    for (let i = 0; i < 5; i++) expect((await pay(await checkout(), "4242424242424242", address)).statusCode).toBe(200);
  });

  it("simulation: 50 honest buyers and one card tester on a shared address: the tester is stopped, the honest buyers all pay", async () => {
    nextWindow();
    const address = "10.36.7.20";
    const honestDeclined = cardsOf("03", 6);
    const tester = cardsOf("04", 20);
    for (const number of [...honestDeclined, ...tester]) fake.declineCards.add(number);
    const good = cardsOf("05", 50);

    // 50 buyers over 8 minutes (one every 10 s): most pay at once; buyers 5, 15, 25, 35 are declined
    // once (each their own card) and buyers 10, 30 twice (the same card), then pay with another card.
    let paid = 0;
    let honestDeclines = 0;
    let honestRefused = 0;
    for (let i = 0; i < 50; i++) {
      t.clock.advance(10_000);
      const orderId = await checkout();
      const tries = [5, 15, 25, 35].includes(i) ? 1 : [10, 30].includes(i) ? 2 : 0;
      const declinedCard = honestDeclined[[5, 15, 25, 35, 10, 30].indexOf(i)]!;
      for (let n = 0; n < tries; n++) {
        const response = await pay(orderId, declinedCard, address);
        if (response.statusCode === 402) honestDeclines++;
        else honestRefused++;
      }
      const response = await pay(orderId, good[i]!, address);
      if (response.statusCode === 200) paid++;
      else honestRefused++;
    }
    expect({ paid, honestDeclines, honestRefused }).toEqual({ paid: 50, honestDeclines: 8, honestRefused: 0 });
    // The former rule (5 declines per address in 10 minutes) would have blocked the address from buyer 25 on.

    // The tester, within the same 10 minutes: a new checkout per card. Six distinct honest cards are
    // in the window, so the tester's fifth card reaches the limit and nothing after reaches the provider.
    let testerDeclined = 0;
    let testerRefused = 0;
    for (const number of tester) {
      t.clock.advance(2_000);
      const response = await pay(await checkout(), number, address);
      if (response.statusCode === 402) testerDeclined++;
      else if (response.statusCode === 429) testerRefused++;
    }
    expect({ testerDeclined, testerRefused }).toEqual({ testerDeclined: 4, testerRefused: 16 });

    // The address waits while the tester's cards are in the window (a per-address limit cannot tell
    // the next buyer from the tester), and pays again once they have left it.
    expect((await pay(await checkout(), "4242424242424242", address)).statusCode).toBe(429);
    t.clock.advance(601_000);
    expect((await pay(await checkout(), "4242424242424242", address)).statusCode).toBe(200);
  });

  it("no-card-data: a decline row keeps a keyed fingerprint, never the card number", async () => {
    nextWindow();
    const [number] = cardsOf("06", 1) as [string];
    fake.declineCards.add(number);
    const orderId = await checkout();
    expect((await pay(orderId, number, "10.36.7.30")).statusCode).toBe(402);
    const rows = await t.deps.database.db.select().from(paymentDeclines);
    const mine = rows.filter((row) => row.orderId === orderId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.cardFingerprint).toMatch(/^[0-9a-f]{64}$/);
    // No column of any decline row holds a number this suite used, in whole or its first twelve digits.
    const stored = JSON.stringify(rows);
    for (const used of [number, ...cardsOf("01", 12), ...cardsOf("02", 1), ...cardsOf("03", 6), ...cardsOf("04", 20)]) {
      expect(stored).not.toContain(used);
      expect(stored).not.toContain(used.slice(0, 12));
    }
  });
});
