import { AppError, conflict } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { assertExpectedCharge } from "../schemas.js";
import type { CardInput, ChargeOutcome, ExpectedCharge, InitializeInput, OrderCharge, OrderConfirmation, PaymentProviderType, ProviderCall, RefundInput } from "../types.js";
import { chargeDemoCard, chargeDemoSavedMethod, chargeId, findDemoPayment, isKeptUnderTimeout, refundDemoPayment, underDemoOutage } from "./charges.js";
import type { DemoLedger, LedgerRecord } from "./ledger.js";

/**
 * The shared demo of providers that take payment against their own order (order_crm_a, order_crm_b,
 * cart_gateway, hosted_store): order `pending` -> `paid` -> `confirmed`, and the payment method token
 * is the provider order id (SPEC "Payment method token formats").
 */
export function createDemoOrderGateway(ledger: DemoLedger, provider: PaymentProviderType, prefixes: { order: string; transaction: string }, orderField: string) {
  const createOrder = (call: ProviderCall, order: { orderId: string; amountCents: number; currency: string; data: Record<string, unknown> }) =>
    ledger.insert(call.clock.now(), {
      id: newId(prefixes.order),
      provider,
      kind: "provider_order",
      status: "pending",
      orderId: order.orderId,
      amountCents: order.amountCents,
      currency: order.currency,
      data: order.data,
    });

  /** The provider order, which must belong to `orderId`: another order's id is simply not found. */
  const findOrder = async (call: ProviderCall, providerOrderId: string, orderId: string): Promise<LedgerRecord> => {
    const order = await ledger.find(provider, providerOrderId, ["provider_order"], true);
    if (!order || order.orderId !== orderId) throw new AppError("NOT_FOUND", "Order not found", orderField);
    return order;
  };

  /** Reuses the pending order of the same orderId, amount and currency (a reloaded page initializes again). */
  const openOrderFor = async (call: ProviderCall, input: { orderId: string; amountCents: number; currency: string }) => {
    const open = await ledger.findLatestForOrder(provider, "provider_order", input.orderId, ["pending"], true);
    return open && open.amountCents === input.amountCents && open.currency === input.currency ? open : null;
  };

  return {
    createOrder,
    findOrder,
    openOrderFor,

    async initialize(input: InitializeInput, call: ProviderCall) {
      const providerOrderId = await ledger.reuseOrCreatePendingOrder(call.clock.now(), {
        id: newId(prefixes.order),
        provider,
        orderId: input.orderId,
        amountCents: input.amountCents,
        currency: input.currency,
        data: { customer: input.customer, shippingAddress: input.shippingAddress, billingAddress: input.billingAddress, lineItems: input.lineItems },
      });
      return { providerOrderId };
    },

    findPayment: async ({ transactionId }: { transactionId: string }, call: ProviderCall) => findDemoPayment(ledger, provider, transactionId),

    chargeSaved: async (input: Parameters<typeof chargeDemoSavedMethod>[3], call: ProviderCall) =>
      chargeDemoSavedMethod(ledger, call, { provider, transactionPrefix: prefixes.transaction }, input),

    refund: async (input: RefundInput, call: ProviderCall) => refundDemoPayment(ledger, call, provider, input),

    /** Charges the order's amount once: a paid order answers 409 instead of charging again, one of another amount than `expected` 400. */
    async payOrder(call: ProviderCall, order: LedgerRecord, card: CardInput | null, expected?: ExpectedCharge): Promise<OrderCharge> {
      if (order.status !== "pending") throw conflict("Order already paid", "ALREADY_PAID");
      const charged = { providerOrderId: order.id, amountCents: order.amountCents ?? 0, currency: order.currency ?? "USD" };
      assertExpectedCharge(expected, charged);
      const outcome = card
        ? await chargeDemoCard(ledger, call, { provider, transactionPrefix: prefixes.transaction, orderId: order.orderId!, ...charged, card, paymentMethodToken: () => order.id })
        : await recordHostedPayment(ledger, call, provider, prefixes.transaction, order);
      if (outcome.status === "succeeded") await ledger.update(call.clock.now(), order.id, { status: "paid" });
      return { outcome, ...charged };
    },

    async confirmOrder(call: ProviderCall, providerOrderId: string, orderId: string): Promise<OrderConfirmation> {
      const order = await findOrder(call, providerOrderId, orderId);
      if (order.status === "pending") throw conflict("Order is not paid");
      if (order.status === "paid") await ledger.update(call.clock.now(), order.id, { status: "confirmed" });
      return { providerOrderId: order.id, orderId, status: "confirmed" };
    },
  };
}

/**
 * hosted_store: the card was taken on the store's own page, so completing the order records a
 * succeeded charge (its id made of the call's idempotency key, so a repeat finds it), under the
 * brand's demo outage switch as a card charge is.
 */
async function recordHostedPayment(ledger: DemoLedger, call: ProviderCall, provider: PaymentProviderType, transactionPrefix: string, order: LedgerRecord): Promise<ChargeOutcome> {
  const transactionId = chargeId(transactionPrefix, call);
  const repeat = await isKeptUnderTimeout(ledger, call, provider, transactionId);
  return underDemoOutage(call, provider, repeat, () => keepHostedPayment(ledger, call, provider, transactionId, order));
}

async function keepHostedPayment(ledger: DemoLedger, call: ProviderCall, provider: PaymentProviderType, transactionId: string, order: LedgerRecord): Promise<ChargeOutcome> {
  await ledger.insert(call.clock.now(), {
    id: transactionId,
    provider,
    kind: "charge",
    status: "succeeded",
    orderId: order.orderId,
    providerOrderId: order.id,
    amountCents: order.amountCents,
    currency: order.currency,
    paymentMethodToken: order.id,
  });
  return { status: "succeeded", transactionId, paymentMethodToken: order.id, providerOrderId: order.id };
}

/** The PaymentProvider members an order-gateway demo shares with the others (id, demo, initialize, lookups). */
export function paymentContractOf<P extends PaymentProviderType>(gateway: ReturnType<typeof createDemoOrderGateway>, id: P) {
  return { id, demo: true as const, initialize: gateway.initialize, findPayment: gateway.findPayment, chargeSaved: gateway.chargeSaved, refund: gateway.refund };
}
