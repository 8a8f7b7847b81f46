import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway } from "../demo/order-gateway.js";
import type { ProviderCall } from "../types.js";
import { PROVIDER, type HostedStoreAdapter } from "./provider.js";

/** Ids: `hs_ord_…` (store order, a draft until paid; also the payment method token), `hs_txn_…` (transaction). */
export const PREFIX = { order: "hs_ord", transaction: "hs_txn" } as const;

/** The demo store's catalogue: every variant costs this much per unit (docs/providers.md). */
export const DEMO_UNIT_PRICE_CENTS = 1_000;

/** Demo: the hosted page lives under our own base URL. */
const checkoutUrlOf = (call: ProviderCall, storeOrderId: string) => `${call.publicBaseUrl}/demo/hosted-store/${storeOrderId}`;

export function createDemoHostedStore(ledger: DemoLedger) {
  const gateway = createDemoOrderGateway(ledger, PROVIDER, PREFIX, "storeOrderId");
  return {
    id: PROVIDER,
    demo: true,
    findPayment: gateway.findPayment,
    chargeSaved: gateway.chargeSaved,
    refund: gateway.refund,

    async initialize(input, call) {
      const { providerOrderId } = await gateway.initialize(input, call);
      return { providerOrderId, checkoutUrl: checkoutUrlOf(call, providerOrderId) };
    },

    async createCheckout({ orderId, amountCents, currency, ...rest }, call) {
      const draft = await gateway.createOrder(call, { orderId, amountCents, currency, data: rest });
      return { storeOrderId: draft.id, checkoutUrl: checkoutUrlOf(call, draft.id) };
    },

    async completeCheckout({ storeOrderId, orderId, expected }, call) {
      return gateway.payOrder(call, await gateway.findOrder(call, storeOrderId, orderId), null, expected);
    },

    confirmOrder: ({ storeOrderId, orderId }, call) => gateway.confirmOrder(call, storeOrderId, orderId),

    async findDraft(storeOrderId, call) {
      const row = await ledger.find(PROVIDER, storeOrderId, ["provider_order"]);
      return row && row.orderId ? { storeOrderId: row.id, orderId: row.orderId, amountCents: row.amountCents ?? 0, currency: row.currency ?? "USD", status: row.status } : null;
    },
  } satisfies HostedStoreAdapter;
}
