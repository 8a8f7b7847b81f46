import type { LightMyRequestResponse } from "fastify";
import type { PaymentProviderType } from "../../src/providers/types.js";
import type { TestApp } from "./app.js";

/** Shared arrangements for the provider endpoint tests: one way to pay by card on every card-taking endpoint. */

export const customer = { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" };
export const address = { line1: "1 Main St", city: "London", state: "LDN", postalCode: "N1 1AA", country: "GB" };
export const AMOUNT = 1000;

export interface CardFields {
  cardNumber: string;
  cardExpMonth: string;
  cardExpYear: string;
  cardCvv: string;
}

export const card = (cardNumber = "4242424242424242", overrides: Partial<CardFields> = {}): CardFields => ({ cardNumber, cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123", ...overrides });

export interface InjectOptions {
  remoteAddress?: string;
  headers?: Record<string, string>;
}

export const post = (t: TestApp, url: string, payload: unknown, options: InjectOptions = {}) =>
  t.app.inject({ method: "POST", url, payload: payload as object, remoteAddress: options.remoteAddress, headers: options.headers });

export interface CardEndpoint {
  /** Label for test names. */
  name: string;
  provider: PaymentProviderType;
  url: string;
  /** Arranges what the endpoint needs (a CRM order, a cart, an intent) and gives the body that pays with the card fields. */
  arrange(t: TestApp, orderId: string, options?: InjectOptions): Promise<(cardFields: Partial<CardFields>) => Record<string, unknown>>;
  /** arrange, then pay with the card fields. */
  pay(t: TestApp, orderId: string, cardFields: Partial<CardFields>, options?: InjectOptions): Promise<LightMyRequestResponse>;
}

const lineItems = [{ productId: "p1", quantity: 2, price: AMOUNT / 2 }];

function cardEndpoint(name: string, provider: PaymentProviderType, verb: string, arrange: CardEndpoint["arrange"]): CardEndpoint {
  const url = `/api/providers/${provider}/${verb}`;
  return {
    name,
    provider,
    url,
    arrange,
    pay: async (t, orderId, c, o) => post(t, url, (await arrange(t, orderId, o))(c), o),
  };
}

/** Every endpoint of SPEC.md that takes card fields (intent_gateway: demo mode, CONTRACT §33). */
export const CARD_ENDPOINTS: CardEndpoint[] = [
  cardEndpoint("intent_gateway create-intent", "intent_gateway", "create-intent", async (_t, orderId) => (c) => ({ orderId, amount: AMOUNT, currency: "USD", ...c })),
  cardEndpoint("intent_gateway confirm", "intent_gateway", "confirm", async (t, orderId, o) => {
    const intent = await post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount: AMOUNT, currency: "USD" }, o);
    return (c) => ({ paymentIntentId: intent.json().paymentIntentId, ...c });
  }),
  cardEndpoint("vault_gateway_a process-payment", "vault_gateway_a", "process-payment", async (_t, orderId) => (c) => ({ orderId, amount: AMOUNT, currency: "USD", ...c })),
  cardEndpoint("order_crm_a process-payment", "order_crm_a", "process-payment", async (t, orderId, o) => {
    const order = await post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" }, o);
    return (c) => ({ crmAOrderId: order.json().crmAOrderId, orderId, ...c });
  }),
  cardEndpoint("order_crm_b process-payment", "order_crm_b", "process-payment", async (_t, orderId) => (c) => ({ orderId, campaignId: "camp-1", customer, billingAddress: address, lineItems, ...c })),
  cardEndpoint("cart_gateway process-payment", "cart_gateway", "process-payment", async (t, orderId, o) => {
    const cart = await post(t, "/api/providers/cart_gateway/create-cart", { orderId, customer, shippingAddress: address, lineItems: [{ itemId: "i1", quantity: 1, price: AMOUNT }] }, o);
    return (c) => ({ cartOrderId: cart.json().cartOrderId, orderId, ...c });
  }),
  cardEndpoint("vault_gateway_b process-payment", "vault_gateway_b", "process-payment", async (_t, orderId) => (c) => ({ orderId, amount: AMOUNT, ...c })),
];

export interface Paid {
  transactionId: string;
  /** The payment method token when the endpoint's answer carries one. */
  paymentMethodToken?: string;
  providerOrderId?: string;
  /** intent_gateway: the payment method id of the confirm answer. */
  paymentMethodId?: string;
}

/** A successful payment through each provider's own endpoints (hosted_store has no card: its page took it). */
export const PAY_BY_PROVIDER: Record<PaymentProviderType, (t: TestApp, orderId: string, cardNumber?: string) => Promise<Paid>> = {
  intent_gateway: async (t, orderId, cardNumber) => {
    const intent = (await post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount: AMOUNT, currency: "USD" })).json();
    const confirmed = (await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intent.paymentIntentId, ...card(cardNumber) })).json();
    return { transactionId: confirmed.paymentIntentId, providerOrderId: confirmed.paymentIntentId, paymentMethodId: confirmed.paymentMethodId };
  },
  vault_gateway_a: async (t, orderId, cardNumber) => {
    const paid = (await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card(cardNumber) })).json();
    return { transactionId: paid.transactionId, paymentMethodToken: paid.paymentMethodToken };
  },
  vault_gateway_b: async (t, orderId, cardNumber) => {
    const paid = (await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, ...card(cardNumber) })).json();
    return { transactionId: paid.transactionId, paymentMethodToken: paid.paymentMethodToken };
  },
  order_crm_a: async (t, orderId, cardNumber) => {
    const order = (await post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" })).json();
    const paid = (await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId, ...card(cardNumber) })).json();
    return { transactionId: paid.transactionId, providerOrderId: paid.crmAOrderId };
  },
  order_crm_b: async (t, orderId, cardNumber) => {
    const paid = (await post(t, "/api/providers/order_crm_b/process-payment", { orderId, campaignId: "camp-1", customer, billingAddress: address, lineItems, ...card(cardNumber) })).json();
    return { transactionId: paid.transactionId, paymentMethodToken: paid.paymentMethodToken, providerOrderId: paid.crmBOrderId };
  },
  hosted_store: async (t, orderId) => {
    const draft = (await post(t, "/api/providers/hosted_store/create-checkout", { orderId, lineItems: [{ variantId: "v1", quantity: 1 }], customer: { email: customer.email }, amount: AMOUNT, currency: "USD" })).json();
    const paid = (await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: draft.storeOrderId, orderId })).json();
    return { transactionId: paid.transactionId, paymentMethodToken: paid.paymentMethodToken, providerOrderId: paid.storeOrderId };
  },
  cart_gateway: async (t, orderId, cardNumber) => {
    const cart = (await post(t, "/api/providers/cart_gateway/create-cart", { orderId, customer, shippingAddress: address, lineItems: [{ itemId: "i1", quantity: 1, price: AMOUNT }] })).json();
    const paid = (await post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId: cart.cartOrderId, orderId, ...card(cardNumber) })).json();
    return { transactionId: paid.transactionId, providerOrderId: paid.cartOrderId };
  },
};
