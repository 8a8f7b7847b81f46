import { createDemoCrm } from "../demo/crm.js";
import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway, paymentContractOf } from "../demo/order-gateway.js";
import { PROVIDER, type OrderCrmAAdapter } from "./provider.js";

/** Ids: `crma_ord_…` (CRM order = payment method token), `crma_txn_…` (transaction). */
export const PREFIX = { order: "crma_ord", transaction: "crma_txn" } as const;

export function createDemoOrderCrmA(ledger: DemoLedger) {
  const gateway = createDemoOrderGateway(ledger, PROVIDER, PREFIX, "crmAOrderId");
  return {
    ...paymentContractOf(gateway, PROVIDER),

    async createOrder({ orderId, totalCents, currency, ...rest }, call) {
      const order = await gateway.createOrder(call, { orderId, amountCents: totalCents, currency, data: rest });
      return { crmAOrderId: order.id };
    },

    async processPayment({ crmAOrderId, orderId, card, expected }, call) {
      return gateway.payOrder(call, await gateway.findOrder(call, crmAOrderId, orderId), card, expected);
    },

    confirmOrder: ({ crmAOrderId, orderId }, call) => gateway.confirmOrder(call, crmAOrderId, orderId),
  } satisfies OrderCrmAAdapter;
}

export const createDemoOrderCrmACrm = (ledger: DemoLedger) => createDemoCrm(ledger, PROVIDER, PREFIX.order);
