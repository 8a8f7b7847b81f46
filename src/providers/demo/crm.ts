import { newId } from "../../lib/ids.js";
import type { CrmProvider, CrmProviderType } from "../types.js";
import type { DemoLedger } from "./ledger.js";

/**
 * A demo CRM (order_crm_a, order_crm_b, cart_gateway as CRM): records the order once per orderId.
 * When the customer paid through this same CRM its paid order is the CRM order, so it is reused.
 */
export function createDemoCrm(ledger: DemoLedger, id: CrmProviderType, orderPrefix: string) {
  return {
    id,
    demo: true,
    async recordOrder(input, call) {
      const paid = await ledger.findLatestForOrder(id, "provider_order", input.orderId, ["paid", "confirmed"]);
      if (paid) return { crmOrderId: paid.id };
      const recorded = await ledger.findLatestForOrder(id, "crm_record", input.orderId, ["recorded"]);
      if (recorded) return { crmOrderId: recorded.id };
      const row = await ledger.insert(call.clock.now(), {
        id: newId(orderPrefix),
        provider: id,
        kind: "crm_record",
        status: "recorded",
        orderId: input.orderId,
        amountCents: input.amountCents,
        currency: input.currency,
        data: {
          transactionId: input.transactionId,
          campaignId: input.campaignId ?? null,
          customer: input.customer,
          billingAddress: input.billingAddress,
          shippingAddress: input.shippingAddress,
          lineItems: input.lineItems,
        },
      });
      return { crmOrderId: row.id };
    },
  } satisfies CrmProvider;
}
