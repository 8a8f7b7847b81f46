import { newId } from "../../lib/ids.js";
import type { AddressInput, CardInput, ChargeOutcome, PartyInput, PaymentProvider, PaymentRecord, ProviderCall } from "../types.js";
import { chargeDemoCard, chargeDemoSavedMethod, findDemoPayment } from "./charges.js";
import type { DemoLedger } from "./ledger.js";

export type VaultGatewayId = "vault_gateway_a" | "vault_gateway_b";

export interface VaultPaymentInput {
  orderId: string;
  amountCents: number;
  currency: string;
  card: CardInput;
  customer?: PartyInput | null;
  billingAddress?: AddressInput | null;
  shippingAddress?: AddressInput | null;
  lineItems?: { productId: string; quantity: number; price: number }[];
}

/** The two direct card gateways with a customer vault share one contract. */
export interface VaultGatewayAdapter extends PaymentProvider {
  readonly id: VaultGatewayId;
  /** Charges the card and stores it in the customer vault. */
  processPayment(input: VaultPaymentInput, call: ProviderCall): Promise<ChargeOutcome>;
  /** The payment that issued a saved-method token, or null (CONTRACT §8 checks use its orderId). */
  findTokenPayment(paymentMethodToken: string, call: ProviderCall): Promise<PaymentRecord | null>;
}

/**
 * Demo vault gateway. Ids: `<prefix>_ord_…` (provider order), `<prefix>_txn_…` (transaction),
 * `<prefix>_cv_…` (customer vault). Token: `<customerVaultId>|<transactionId>`.
 */
export function createDemoVaultGateway(ledger: DemoLedger, id: VaultGatewayId, prefix: string) {
  const ids = { order: `${prefix}_ord`, transaction: `${prefix}_txn`, vault: `${prefix}_cv` };
  const openOrder = (call: ProviderCall, orderId: string) => ledger.findLatestForOrder(id, "provider_order", orderId, ["pending"], true);

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

    async processPayment(input, call) {
      const order = await openOrder(call, input.orderId);
      const outcome = await chargeDemoCard(ledger, call, {
        provider: id,
        transactionPrefix: ids.transaction,
        orderId: input.orderId,
        providerOrderId: order?.id ?? null,
        amountCents: input.amountCents,
        currency: input.currency,
        card: input.card,
        paymentMethodToken: (transactionId) => `${newId(ids.vault)}|${transactionId}`,
      });
      if (order && outcome.status === "succeeded") await ledger.update(call.clock.now(), order.id, { status: "paid" });
      return outcome;
    },

    async findTokenPayment(paymentMethodToken, call) {
      const [vaultId, transactionId, ...rest] = paymentMethodToken.split("|");
      if (!vaultId?.startsWith(`${ids.vault}_`) || !transactionId || rest.length > 0) return null;
      const payment = await findDemoPayment(ledger, id, transactionId);
      return payment && payment.paymentMethodToken === paymentMethodToken ? payment : null;
    },
  } satisfies VaultGatewayAdapter;
}
