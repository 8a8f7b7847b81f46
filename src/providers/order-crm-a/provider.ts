import type { AddressInput, CardInput, ExpectedCharge, OrderCharge, OrderConfirmation, PartyInput, PaymentProvider, ProviderCall } from "../types.js";

/** order_crm_a as both its adapters (demo.ts, adapter.ts) implement it: the id and the adapter interface of its SPEC endpoints. */

export const PROVIDER = "order_crm_a";

export interface CrmLineItem {
  productId: string;
  quantity: number;
  price: number;
}

export interface CreateCrmAOrderInput {
  orderId: string;
  customer: PartyInput & { email: string };
  shippingAddress: AddressInput;
  billingAddress: AddressInput;
  lineItems: CrmLineItem[];
  totalCents: number;
  currency: string;
  campaignId?: string;
}

export interface OrderCrmAAdapter extends PaymentProvider {
  createOrder(input: CreateCrmAOrderInput, call: ProviderCall): Promise<{ crmAOrderId: string }>;
  /** Charges the CRM order; one whose total or currency is not `expected` (the checkout's) is refused before the charge. */
  processPayment(input: { crmAOrderId: string; orderId: string; card: CardInput; expected?: ExpectedCharge }, call: ProviderCall): Promise<OrderCharge>;
  confirmOrder(input: { crmAOrderId: string; orderId: string }, call: ProviderCall): Promise<OrderConfirmation>;
}
