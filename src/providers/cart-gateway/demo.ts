import { createDemoCrm } from "../demo/crm.js";
import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway, paymentContractOf } from "../demo/order-gateway.js";
import { PROVIDER, type CartGatewayAdapter } from "./provider.js";

/** Ids: `cart_ord_…` (cart order = payment method token), `cart_txn_…` (transaction). */
export const PREFIX = { order: "cart_ord", transaction: "cart_txn" } as const;

export function createDemoCartGateway(ledger: DemoLedger) {
  const gateway = createDemoOrderGateway(ledger, PROVIDER, PREFIX, "cartOrderId");
  return {
    ...paymentContractOf(gateway, PROVIDER),

    async createCart({ orderId, currency, ...rest }, call) {
      const amountCents = rest.lineItems.reduce((sum, item) => sum + item.price * item.quantity, 0);
      const cart = await gateway.createOrder(call, { orderId, amountCents, currency, data: rest });
      return { cartOrderId: cart.id };
    },

    async processPayment({ cartOrderId, orderId, card, expected }, call) {
      return gateway.payOrder(call, await gateway.findOrder(call, cartOrderId, orderId), card, expected);
    },
  } satisfies CartGatewayAdapter;
}

export const createDemoCartGatewayCrm = (ledger: DemoLedger) => createDemoCrm(ledger, PROVIDER, PREFIX.order);
