import { validationError } from "../../lib/errors.js";
import type { PaymentAdapters } from "../../providers/registry.js";
import type { PaymentIntentView } from "../../providers/intent-gateway/provider.js";
import type { AddressInput, CardInput, ChargeOutcome, InitializeInput, OrderCharge, PartyInput, PaymentProviderType, ProviderCall } from "../../providers/types.js";

/** What a cascade charges with: the checkout's order (its amount, never the client's), the buyer and the card (in memory only). */
export interface CascadeOrder {
  orderId: string;
  checkoutId: string;
  amountCents: number;
  /** Upper case. */
  currency: string;
  productName: string;
  /** The token's line items (their ids are the product ids routing reads). */
  lineItems: { id: string; name?: string; quantity: number; unitPrice: number }[];
  customer: PartyInput & { email: string; firstName: string; lastName: string };
  /** None when the checkout asked for no address (issue 36): then only providers that take none are tried (needsAddress). */
  billingAddress: AddressInput | null;
  shippingAddress: AddressInput | null;
  /** Where the checkout was initialized, and the provider order made there. */
  initializedAt: { provider: string | null; providerOrderId: string | null };
  /** intent_gateway's 3-D Secure return path (the checkout page). */
  returnUrl?: string;
  /**
   * Keeps a provider order made at `provider` by the cascade before it is charged (the checkout then
   * points at it): a takeover after a crash charges that same order, whose charge the provider knows,
   * instead of making a new one (the demo intent gateway would charge a new intent again).
   */
  keepProviderOrder(provider: PaymentProviderType, providerOrderId: string): Promise<void>;
}

/** One provider's answer to the cascade: a ChargeOutcome whose success names the provider order complete verifies with. */
export type CascadeOutcome =
  | { status: "succeeded"; transactionId: string; providerOrderId: string | null; paymentMethodToken: string }
  | { status: "requires_action"; transactionId: string; providerOrderId: string; nextActionUrl: string | null }
  | { status: "declined"; reason: string; providerCode?: string };

/** The order's line items when they add up to its amount, else one line for the whole order (as the checkout page sends them). */
export function productLines(order: Pick<CascadeOrder, "orderId" | "amountCents" | "lineItems">): { productId: string; quantity: number; price: number }[] {
  const sum = order.lineItems.reduce((total, item) => total + item.unitPrice * item.quantity, 0);
  return order.lineItems.length > 0 && sum === order.amountCents
    ? order.lineItems.map((item) => ({ productId: item.id, quantity: item.quantity, price: item.unitPrice }))
    : [{ productId: order.orderId, quantity: 1, price: order.amountCents }];
}

const expectedOf = (order: CascadeOrder) => ({ amountCents: order.amountCents, currency: order.currency });

function initializeInputOf(order: CascadeOrder): InitializeInput {
  return {
    checkoutId: order.checkoutId,
    orderId: order.orderId,
    amountCents: order.amountCents,
    currency: order.currency,
    productName: order.productName,
    customer: order.customer,
    shippingAddress: order.shippingAddress,
    billingAddress: order.billingAddress,
    lineItems: order.lineItems.map(({ id, name, quantity, unitPrice }) => ({ id, name, quantity, unitPrice })),
  };
}

/**
 * The provider order a charge at `provider` needs: the checkout's when it was initialized there, else
 * one made now at that provider with the cascade call's key (a takeover asks again with the same key).
 */
async function providerOrderAt(adapter: { initialize(input: InitializeInput, call: ProviderCall): Promise<{ providerOrderId: string }> }, provider: PaymentProviderType, order: CascadeOrder, call: ProviderCall): Promise<string> {
  if (order.initializedAt.provider === provider && order.initializedAt.providerOrderId) return order.initializedAt.providerOrderId;
  const { providerOrderId } = await adapter.initialize(initializeInputOf(order), call);
  await order.keepProviderOrder(provider, providerOrderId);
  return providerOrderId;
}

function fromCharge(outcome: ChargeOutcome, providerOrderId: string | null): CascadeOutcome {
  if (outcome.status === "succeeded") return { status: "succeeded", transactionId: outcome.transactionId, providerOrderId: outcome.providerOrderId ?? providerOrderId, paymentMethodToken: outcome.paymentMethodToken ?? "" };
  if (outcome.status === "declined") return outcome;
  // Only the intent gateway asks for 3-D Secure; a direct gateway that did is refused as the 3-D Secure test card is elsewhere.
  return { status: "declined", reason: "authentication_required" };
}

const fromOrderCharge = (charge: OrderCharge) => fromCharge(charge.outcome, charge.providerOrderId);

function fromIntent(intent: PaymentIntentView): CascadeOutcome {
  if (intent.status === "succeeded") return { status: "succeeded", transactionId: intent.paymentIntentId, providerOrderId: intent.paymentIntentId, paymentMethodToken: "" };
  if (intent.status === "requires_action") return { status: "requires_action", transactionId: intent.paymentIntentId, providerOrderId: intent.paymentIntentId, nextActionUrl: intent.nextActionUrl };
  return { status: "declined", reason: intent.declineReason ?? "card_declined" };
}

/** Providers whose API needs the buyer's address (docs/providers.md); the checkout page asks for it for them. */
const ADDRESS_PROVIDERS: ReadonlySet<string> = new Set(["order_crm_a", "order_crm_b", "cart_gateway"]);
export const needsAddress = (provider: string) => ADDRESS_PROVIDERS.has(provider);

/** The address of a provider that needs one: the pay leaves such providers out when it has none (checkout/pay.ts). */
function addressFor(order: CascadeOrder): AddressInput {
  const address = order.billingAddress ?? order.shippingAddress;
  if (!address) throw validationError("Invalid request: billingAddress is required for this payment provider", "billingAddress");
  return address;
}

type ChargeAt<P extends PaymentProviderType> = (adapter: PaymentAdapters[P], order: CascadeOrder, card: CardInput, call: ProviderCall) => Promise<CascadeOutcome>;

const vaultCharge: ChargeAt<"vault_gateway_a" | "vault_gateway_b"> = async (adapter, order, card, call) =>
  fromCharge(
    await adapter.processPayment(
      {
        orderId: order.orderId,
        amountCents: order.amountCents,
        currency: order.currency,
        card,
        customer: order.customer,
        billingAddress: order.billingAddress,
        shippingAddress: order.shippingAddress,
        lineItems: productLines(order),
      },
      call,
    ),
    // The vault gateways keep no order: the checkout's provider order when it was made there, else none.
    order.initializedAt.provider === adapter.id ? order.initializedAt.providerOrderId : null,
  );

/**
 * The charge step of each card-taking provider, as its own endpoints make it (src/payments/endpoints):
 * the same adapter operations, with the checkout's amount (never the client's). hosted_store takes no
 * card (its own page does): it is never a cascade's provider.
 */
export const CHARGE_AT: { [P in Exclude<PaymentProviderType, "hosted_store">]: ChargeAt<P> } = {
  vault_gateway_a: vaultCharge,
  vault_gateway_b: vaultCharge,
  order_crm_a: async (adapter, order, card, call) => {
    const crmAOrderId = await providerOrderAt(adapter, "order_crm_a", order, call);
    return fromOrderCharge(await adapter.processPayment({ crmAOrderId, orderId: order.orderId, card, expected: expectedOf(order) }, call));
  },
  order_crm_b: async (adapter, order, card, call) =>
    fromOrderCharge(
      await adapter.processPayment(
        { orderId: order.orderId, customer: order.customer, billingAddress: addressFor(order), shippingAddress: order.shippingAddress, lineItems: productLines(order), currency: order.currency, card },
        call,
      ),
    ),
  cart_gateway: async (adapter, order, card, call) => {
    const { cartOrderId } = await adapter.createCart(
      {
        orderId: order.orderId,
        customer: order.customer,
        shippingAddress: order.shippingAddress ?? addressFor(order),
        lineItems: productLines(order).map(({ productId, quantity, price }) => ({ itemId: productId, quantity, price })),
        currency: order.currency,
      },
      call,
    );
    return fromOrderCharge(await adapter.processPayment({ cartOrderId, orderId: order.orderId, card, expected: expectedOf(order) }, call));
  },
  intent_gateway: async (adapter, order, card, call) => {
    const paymentIntentId = await providerOrderAt(adapter, "intent_gateway", order, call);
    return fromIntent(await adapter.confirmIntent({ paymentIntentId, card, returnUrl: order.returnUrl }, call));
  },
};

export const cardTaking = (provider: string): provider is keyof typeof CHARGE_AT => provider in CHARGE_AT;

/** Charges the card at `provider` with its adapter. */
export function chargeAt(provider: keyof typeof CHARGE_AT, adapter: PaymentAdapters[keyof typeof CHARGE_AT], order: CascadeOrder, card: CardInput, call: ProviderCall): Promise<CascadeOutcome> {
  return (CHARGE_AT[provider] as ChargeAt<typeof provider>)(adapter as never, order, card, call);
}

/**
 * Whether asking the provider's charge again with the same idempotency key answers the first charge
 * instead of making a second: the demo ledger and the gateways that take a key do; the vault
 * gateways' direct-post API takes none, so a failure that may have charged there is not asked again.
 */
export const honoursIdempotencyKey = (provider: string, demo: boolean) => demo || (provider !== "vault_gateway_a" && provider !== "vault_gateway_b");
