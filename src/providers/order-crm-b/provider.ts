import type { AddressInput, CardInput, OrderCharge, PartyInput, PaymentProvider, ProviderCall } from "../types.js";

/** order_crm_b as both its adapters (demo.ts, adapter.ts) implement it: the id and the adapter interface of its SPEC endpoint. */

export const PROVIDER = "order_crm_b";

export interface CrmBPaymentInput {
  orderId: string;
  /** Omitted: the brand's `campaignId` setting (demo: "demo"). */
  campaignId?: string;
  customer: PartyInput & { email: string };
  billingAddress: AddressInput;
  shippingAddress?: AddressInput | null;
  lineItems: { productId: string; quantity: number; price: number }[];
  currency: string;
  card: CardInput;
}

export interface OrderCrmBAdapter extends PaymentProvider {
  /** Creates the CRM order from the line items and charges it in one call, as this CRM's API does. */
  processPayment(input: CrmBPaymentInput, call: ProviderCall): Promise<OrderCharge>;
}
