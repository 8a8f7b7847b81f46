import { conflict } from "../../lib/errors.js";
import { createDemoCrm } from "../demo/crm.js";
import type { DemoLedger } from "../demo/ledger.js";
import { createDemoOrderGateway, paymentContractOf } from "../demo/order-gateway.js";
import { PROVIDER, type OrderCrmBAdapter } from "./provider.js";

/** Ids: `crmb_ord_…` (CRM order = payment method token), `crmb_txn_…` (transaction). */
export const PREFIX = { order: "crmb_ord", transaction: "crmb_txn" } as const;

/** The campaign of a payment that names none (the hosted checkout page's), in demo mode. */
export const DEMO_CAMPAIGN_ID = "demo";

export function createDemoOrderCrmB(ledger: DemoLedger) {
  const gateway = createDemoOrderGateway(ledger, PROVIDER, PREFIX, "orderId");
  return {
    ...paymentContractOf(gateway, PROVIDER),

    async processPayment({ card, ...input }, call) {
      // One CRM order per orderId: a paid one is not charged again.
      if (await ledger.findLatestForOrder(PROVIDER, "provider_order", input.orderId, ["paid", "confirmed"])) throw conflict("Order already paid", "ALREADY_PAID");
      const amountCents = input.lineItems.reduce((sum, item) => sum + item.price * item.quantity, 0);
      // The order initialize created for this checkout, when the amounts agree; otherwise a new one.
      const order =
        (await gateway.openOrderFor(call, { orderId: input.orderId, amountCents, currency: input.currency })) ??
        (await gateway.createOrder(call, {
          orderId: input.orderId,
          amountCents,
          currency: input.currency,
          data: { campaignId: input.campaignId ?? DEMO_CAMPAIGN_ID, customer: input.customer, billingAddress: input.billingAddress, shippingAddress: input.shippingAddress ?? null, lineItems: input.lineItems },
        }));
      return gateway.payOrder(call, order, card);
    },
  } satisfies OrderCrmBAdapter;
}

export const createDemoOrderCrmBCrm = (ledger: DemoLedger) => createDemoCrm(ledger, PROVIDER, PREFIX.order);
