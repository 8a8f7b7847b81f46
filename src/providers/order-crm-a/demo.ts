import { createDemoCrm } from "../demo/crm.js";
import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway, paymentContractOf, type OrderCharge, type OrderConfirmation } from "../demo/order-gateway.js";
import type { AddressInput, CardInput, PartyInput, PaymentProvider, ProviderCall } from "../types.js";

export const PROVIDER = "order_crm_a";
/** Ids: `crma_ord_…` (CRM order = payment method token), `crma_txn_…` (transaction). */
export const PREFIX = { order: "crma_ord", transaction: "crma_txn" } as const;

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
  processPayment(input: { crmAOrderId: string; orderId: string; card: CardInput }, call: ProviderCall): Promise<OrderCharge>;
  confirmOrder(input: { crmAOrderId: string; orderId: string }, call: ProviderCall): Promise<OrderConfirmation>;
}

export function createDemoOrderCrmA(ledger: DemoLedger) {
  const gateway = createDemoOrderGateway(ledger, PROVIDER, PREFIX, "crmAOrderId");
  return {
    ...paymentContractOf(gateway, PROVIDER),

    async createOrder({ orderId, totalCents, currency, ...rest }, call) {
      const order = await gateway.createOrder(call, { orderId, amountCents: totalCents, currency, data: rest });
      return { crmAOrderId: order.id };
    },

    async processPayment({ crmAOrderId, orderId, card }, call) {
      return gateway.payOrder(call, await gateway.findOrder(call, crmAOrderId, orderId), card);
    },

    confirmOrder: ({ crmAOrderId, orderId }, call) => gateway.confirmOrder(call, crmAOrderId, orderId),
  } satisfies OrderCrmAAdapter;
}

export const createDemoOrderCrmACrm = (ledger: DemoLedger) => createDemoCrm(ledger, PROVIDER, PREFIX.order);
