import { safeEqual } from "../../lib/crypto.js";
import { AppError } from "../../lib/errors.js";
import { newId, randomToken } from "../../lib/ids.js";
import { cardLast4, DEFAULT_TEST_CARD, testCardBehaviour } from "../demo/cards.js";
import { chargeDemoSavedMethod, chargeId, findDemoPayment, isKeptUnderTimeout, refundDemoPayment, underDemoOutage } from "../demo/charges.js";
import type { DemoLedger, LedgerRecord } from "../demo/ledger.js";
import type { CardInput, ProviderCall } from "../types.js";
import { intentToken, PROVIDER, type ChallengeOutcome, type CreateIntentInput, type IntentGatewayAdapter, type PaymentIntentStatus, type PaymentIntentView } from "./provider.js";

/** Id prefixes: a stray id in a log says which provider and what it is. */
export const PREFIX = { intent: "pi_demo", paymentMethod: "pm_demo", customer: "cus_demo" } as const;

/** What the demo keeps on an intent (the ledger row's `data`). */
type IntentData = {
  clientSecret: string;
  customerId: string;
  paymentMethodId?: string;
  reason?: string;
  /** The open 3-D Secure challenge: its secret (in the page's URL) and where it returns to. */
  challenge?: string;
  challengeUrl?: string;
  returnUrl?: string;
};

/** The demo bank's 3-D Secure page of an intent (src/payments/challenge/routes.ts). */
export const challengePath = (paymentIntentId: string, challenge: string) => `/demo/intent-gateway/3ds/${encodeURIComponent(paymentIntentId)}/${encodeURIComponent(challenge)}`;

function viewOf(row: LedgerRecord): PaymentIntentView {
  const data = row.data as IntentData;
  return {
    paymentIntentId: row.id,
    clientSecret: data.clientSecret,
    orderId: row.orderId ?? "",
    amountCents: row.amountCents ?? 0,
    currency: row.currency ?? "",
    status: row.status as PaymentIntentStatus,
    paymentMethodId: data.paymentMethodId ?? null,
    declineReason: row.status === "failed" ? (data.reason ?? null) : null,
    nextActionUrl: row.status === "requires_action" ? (data.challengeUrl ?? null) : null,
  };
}

/** The 3-D Secure card's intent: `requires_action`, with a challenge page that returns to `returnUrl` (the checkout page; "/" without one). */
function challengeData(call: ProviderCall, paymentIntentId: string, returnUrl: string | undefined) {
  const challenge = randomToken(18);
  return { challenge, challengeUrl: `${call.publicBaseUrl}${challengePath(paymentIntentId, challenge)}`, returnUrl: returnUrl ?? "/" };
}

/** Runs a card against an intent following CONTRACT §25; the 3-D Secure card leaves it `requires_action`. */
async function attachAndConfirm(ledger: DemoLedger, call: ProviderCall, intent: LedgerRecord, card: Pick<CardInput, "cardNumber">, returnUrl?: string): Promise<LedgerRecord> {
  const behaviour = testCardBehaviour(card.cardNumber, PROVIDER);
  const paymentMethodId = newId(PREFIX.paymentMethod);
  const data = { ...intent.data, paymentMethodId };
  const common = { cardLast4: cardLast4(card.cardNumber) };
  switch (behaviour.kind) {
    case "decline":
      return ledger.update(call.clock.now(), intent.id, { ...common, status: "failed", paymentMethodToken: null, data: { ...data, reason: behaviour.reason } });
    case "requires_action":
      return ledger.update(call.clock.now(), intent.id, { ...common, status: "requires_action", data: { ...data, ...challengeData(call, intent.id, returnUrl) } });
    case "succeed": {
      const customerId = (intent.data as { customerId: string }).customerId;
      return ledger.update(call.clock.now(), intent.id, {
        ...common,
        status: "succeeded",
        paymentMethodToken: intentToken(paymentMethodId, customerId),
        cardBehaviour: behaviour.cardBehaviour,
        data,
      });
    }
  }
}

export function createDemoIntentGateway(ledger: DemoLedger) {
  const newIntent = (call: ProviderCall, input: Omit<CreateIntentInput, "card">, id = newId(PREFIX.intent)) => {
    return ledger.insert(call.clock.now(), {
      id,
      provider: PROVIDER,
      kind: "payment_intent",
      status: "requires_payment_method",
      orderId: input.orderId,
      providerOrderId: id,
      amountCents: input.amountCents,
      currency: input.currency,
      data: {
        // The gateway's form: `<intent id>_secret_<random>`; only the page that holds it may confirm.
        clientSecret: `${id}_secret_${randomToken(18)}`,
        customerId: newId(PREFIX.customer),
        customerEmail: input.customer?.email ?? null,
        metadata: input.metadata ?? {},
        shippingAddress: input.shippingAddress ?? null,
      },
    });
  };

  return {
    id: PROVIDER,
    demo: true,

    async initialize(input, call) {
      // A reloaded checkout page initializes again: reuse the open intent instead of piling them up.
      const open = await ledger.findLatestForOrder(PROVIDER, "payment_intent", input.orderId, ["requires_payment_method"]);
      const intent =
        open && open.amountCents === input.amountCents && open.currency === input.currency
          ? open
          : await newIntent(call, { orderId: input.orderId, amountCents: input.amountCents, currency: input.currency, customer: input.customer?.email ? { email: input.customer.email } : null, shippingAddress: input.shippingAddress });
      return { providerOrderId: intent.id, clientSecret: viewOf(intent).clientSecret };
    },

    // The payment intent id is the transaction id (and the providerOrderId).
    findPayment: async ({ transactionId }, call) => findDemoPayment(ledger, PROVIDER, transactionId, ["payment_intent"]),

    chargeSaved: async (input, call) => chargeDemoSavedMethod(ledger, call, { provider: PROVIDER, transactionPrefix: PREFIX.intent, kind: "payment_intent" }, input),
    refund: async (input, call) => refundDemoPayment(ledger, call, PROVIDER, input),

    async createIntent(input, call) {
      const card = input.card;
      if (!card) return viewOf(await newIntent(call, input));
      // Under the demo `timeout` outage the intent's id is made of the call's key, so a repeat answers the intent made.
      const id = call.demoOutage === "timeout" && call.idempotencyKey ? chargeId(PREFIX.intent, call) : undefined;
      const repeat = id !== undefined && (await isKeptUnderTimeout(ledger, call, PROVIDER, id, ["payment_intent"]));
      if (repeat) return viewOf((await ledger.find(PROVIDER, id, ["payment_intent"]))!);
      return underDemoOutage(call, PROVIDER, false, async () => viewOf(await attachAndConfirm(ledger, call, await newIntent(call, input, id), card)));
    },

    async retrieveIntent(paymentIntentId, call) {
      const row = await ledger.find(PROVIDER, paymentIntentId, ["payment_intent"]);
      return row ? viewOf(row) : null;
    },

    async confirmIntent({ paymentIntentId, card, returnUrl }, call) {
      const intent = await ledger.find(PROVIDER, paymentIntentId, ["payment_intent"], true);
      if (!intent) throw new AppError("NOT_FOUND", "Payment intent not found", "paymentIntentId");
      // Never charge twice: only an intent still waiting for a payment method, or one given a new card, is attempted.
      if (intent.status === "succeeded" || (!card && intent.status !== "requires_payment_method")) return viewOf(intent);
      // SPEC's body has no card: the demo confirms as the gateway's default test card would (succeeds).
      // Under the demo outage switch: a repeat after a `timeout` finds the intent succeeded (above).
      return underDemoOutage(call, PROVIDER, false, async () => viewOf(await attachAndConfirm(ledger, call, intent, card ?? { cardNumber: DEFAULT_TEST_CARD }, returnUrl)));
    },

    findChallenge: async ({ paymentIntentId, challenge }, call) => {
      const row = await openChallenge(paymentIntentId, challenge, false);
      return row ? { intent: viewOf(row), returnUrl: (row.data as IntentData).returnUrl ?? "/" } : null;
    },

    async answerChallenge({ paymentIntentId, challenge, outcome }, call) {
      // Locked (the caller's transaction): two answers at once act once, the second finds it answered.
      const row = await openChallenge(paymentIntentId, challenge, true);
      if (!row) return null;
      const data = row.data as IntentData;
      const returnUrl = data.returnUrl ?? "/";
      if (row.status !== "requires_action") return { intent: viewOf(row), returnUrl, changed: false };
      const updated = await ledger.update(call.clock.now(), row.id, resultOfChallenge(data, outcome));
      return { intent: viewOf(updated), returnUrl, changed: true };
    },
  } satisfies IntentGatewayAdapter;

  /** The intent whose challenge this is (compared in constant time); null for a forged id or secret. */
  async function openChallenge(paymentIntentId: string, challenge: string, lock: boolean): Promise<LedgerRecord | null> {
    const row = await ledger.find(PROVIDER, paymentIntentId, ["payment_intent"], lock);
    const expected = (row?.data as IntentData | undefined)?.challenge;
    return row && expected && safeEqual(expected, challenge) ? row : null;
  }
}

/** Approved: the payment succeeds with the card attached at confirm; failed: a decline `authentication_failed`. */
function resultOfChallenge(data: IntentData, outcome: ChallengeOutcome) {
  if (outcome === "fail") return { status: "failed", paymentMethodToken: null, data: { ...data, reason: "authentication_failed" } };
  return { status: "succeeded", paymentMethodToken: intentToken(data.paymentMethodId ?? "", data.customerId), cardBehaviour: null, data };
}
