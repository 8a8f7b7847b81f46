import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway, type OrderCharge, type OrderConfirmation } from "../demo/order-gateway.js";
import type { PaymentProvider, ProviderCall } from "../types.js";

export const PROVIDER = "hosted_store";
/** Ids: `hs_ord_…` (store order, a draft until paid; also the payment method token), `hs_txn_…` (transaction). */
export const PREFIX = { order: "hs_ord", transaction: "hs_txn" } as const;

export interface CreateHostedCheckoutInput {
  orderId: string;
  lineItems: { variantId: string; quantity: number; price?: number }[];
  customer: { email: string; firstName?: string; lastName?: string; phone?: string };
  /** What the demo store charges; the real store prices the variants itself. */
  amountCents: number;
  currency: string;
}

export interface HostedStoreAdapter extends PaymentProvider {
  /** Creates a draft order and the URL of the store's hosted checkout page for it. */
  createCheckout(input: CreateHostedCheckoutInput, call: ProviderCall): Promise<{ storeOrderId: string; checkoutUrl: string }>;
  /** The customer paid on the hosted page: the draft becomes a paid order with its transaction. */
  completeCheckout(input: { storeOrderId: string; orderId: string }, call: ProviderCall): Promise<OrderCharge>;
  confirmOrder(input: { storeOrderId: string; orderId: string }, call: ProviderCall): Promise<OrderConfirmation>;
}

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

    async initialize(input, call) {
      const { providerOrderId } = await gateway.initialize(input, call);
      return { providerOrderId, checkoutUrl: checkoutUrlOf(call, providerOrderId) };
    },

    async createCheckout({ orderId, amountCents, currency, ...rest }, call) {
      const draft = await gateway.createOrder(call, { orderId, amountCents, currency, data: rest });
      return { storeOrderId: draft.id, checkoutUrl: checkoutUrlOf(call, draft.id) };
    },

    async completeCheckout({ storeOrderId, orderId }, call) {
      return gateway.payOrder(call, await gateway.findOrder(call, storeOrderId, orderId), null);
    },

    confirmOrder: ({ storeOrderId, orderId }, call) => gateway.confirmOrder(call, storeOrderId, orderId),
  } satisfies HostedStoreAdapter;
}
