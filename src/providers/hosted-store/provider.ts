import type { ExpectedCharge, OrderCharge, OrderConfirmation, PaymentProvider, ProviderCall } from "../types.js";

/** hosted_store as both its adapters (demo.ts, adapter.ts) implement it: the id and the adapter interface of its SPEC endpoints. */

export const PROVIDER = "hosted_store";

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
  /**
   * The customer paid on the hosted page: the draft becomes a paid order with its transaction. The
   * demo store, whose page is ours, refuses a draft whose amount or currency is not `expected` (the
   * checkout's) before paying it; the real store took the money on its own page already.
   */
  completeCheckout(input: { storeOrderId: string; orderId: string; expected?: ExpectedCharge }, call: ProviderCall): Promise<OrderCharge>;
  confirmOrder(input: { storeOrderId: string; orderId: string }, call: ProviderCall): Promise<OrderConfirmation>;
  /** Demo only: the draft the demo store's checkout page shows (null when unknown). */
  findDraft?(storeOrderId: string, call: ProviderCall): Promise<DemoDraft | null>;
}

export interface DemoDraft {
  storeOrderId: string;
  orderId: string;
  amountCents: number;
  currency: string;
  /** `pending` until paid. */
  status: string;
}
