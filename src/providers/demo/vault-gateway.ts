import { newId } from "../../lib/ids.js";
import type { ProviderCall } from "../types.js";
import { vaultToken, type VaultGatewayAdapter, type VaultGatewayId } from "../vault-gateway-a/provider.js";
import { chargeDemoCard, chargeDemoSavedMethod, findDemoPayment, refundDemoPayment } from "./charges.js";
import type { DemoLedger } from "./ledger.js";

/**
 * Demo vault gateway. Ids: `<prefix>_ord_…` (provider order), `<prefix>_txn_…` (transaction),
 * `<prefix>_cv_…` (customer vault). Token: `<customerVaultId>|<transactionId>`.
 */
export function createDemoVaultGateway(ledger: DemoLedger, id: VaultGatewayId, prefix: string) {
  const ids = { order: `${prefix}_ord`, transaction: `${prefix}_txn`, vault: `${prefix}_cv` };

  return {
    id,
    demo: true,

    async initialize(input, call) {
      const providerOrderId = await ledger.reuseOrCreatePendingOrder(call.clock.now(), {
        id: newId(ids.order),
        provider: id,
        orderId: input.orderId,
        amountCents: input.amountCents,
        currency: input.currency,
        data: { customer: input.customer },
      });
      return { providerOrderId };
    },

    findPayment: async ({ transactionId }, call) => findDemoPayment(ledger, id, transactionId),

    chargeSaved: async (input, call) => chargeDemoSavedMethod(ledger, call, { provider: id, transactionPrefix: ids.transaction }, input),
    refund: async (input, call) => refundDemoPayment(ledger, call, id, input),

    // The charge pays the order's pending provider order (initialize's), if any: one statement.
    processPayment: (input, call) =>
      chargeDemoCard(ledger, call, {
        provider: id,
        transactionPrefix: ids.transaction,
        orderId: input.orderId,
        providerOrderId: null,
        ofOpenOrder: true,
        amountCents: input.amountCents,
        currency: input.currency,
        card: input.card,
        paymentMethodToken: (transactionId) => vaultToken(newId(ids.vault), transactionId),
      }),

    async findTokenPayment(paymentMethodToken, call) {
      const [vaultId, transactionId, ...rest] = paymentMethodToken.split("|");
      if (!vaultId?.startsWith(`${ids.vault}_`) || !transactionId || rest.length > 0) return null;
      const payment = await findDemoPayment(ledger, id, transactionId);
      return payment && payment.paymentMethodToken === paymentMethodToken ? payment : null;
    },
  } satisfies VaultGatewayAdapter;
}
