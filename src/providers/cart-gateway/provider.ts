import type { AddressInput, CardInput, ExpectedCharge, OrderCharge, PartyInput, PaymentProvider, ProviderCall } from "../types.js";

/** cart_gateway as both its adapters (demo.ts, adapter.ts) implement it: the id and the adapter interface of its SPEC endpoints. */

export const PROVIDER = "cart_gateway";

export interface CreateCartInput {
  orderId: string;
  customer: PartyInput & { email: string };
  shippingAddress: AddressInput;
  lineItems: { itemId: string; quantity: number; price: number }[];
  currency: string;
}

export interface CartGatewayAdapter extends PaymentProvider {
  createCart(input: CreateCartInput, call: ProviderCall): Promise<{ cartOrderId: string }>;
  /** Charges the cart; one whose total or currency is not `expected` (the checkout's) is refused before the charge. */
  processPayment(input: { cartOrderId: string; orderId: string; card: CardInput; expected?: ExpectedCharge }, call: ProviderCall): Promise<OrderCharge>;
}
