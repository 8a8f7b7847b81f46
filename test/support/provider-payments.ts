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
  /** Arranges what the endpoint needs (a CRM order, a cart, an intent), then pays with the card fields. */
  pay(t: TestApp, orderId: string, cardFields: Partial<CardFields>, options?: InjectOptions): Promise<LightMyRequestResponse>;
}

const lineItems = [{ productId: "p1", quantity: 2, price: AMOUNT / 2 }];

/** Every endpoint of SPEC.md that takes card fields (intent_gateway: demo mode, CONTRACT §33). */
export const CARD_ENDPOINTS: CardEndpoint[] = [
  {
    name: "intent_gateway create-intent",
    provider: "intent_gateway",
    url: "/api/providers/intent_gateway/create-intent",
    pay: (t, orderId, c, o) => post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount: AMOUNT, currency: "USD", ...c }, o),
  },
  {
    name: "intent_gateway confirm",
    provider: "intent_gateway",
    url: "/api/providers/intent_gateway/confirm",
    pay: async (t, orderId, c, o) => {
      const intent = await post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount: AMOUNT, currency: "USD" }, o);
      return post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intent.json().paymentIntentId, ...c }, o);
    },
  },
  {
    name: "vault_gateway_a process-payment",
    provider: "vault_gateway_a",
    url: "/api/providers/vault_gateway_a/process-payment",
    pay: (t, orderId, c, o) => post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...c }, o),
  },
  {
    name: "order_crm_a process-payment",
    provider: "order_crm_a",
    url: "/api/providers/order_crm_a/process-payment",
    pay: async (t, orderId, c, o) => {
      const order = await post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" }, o);
      return post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.json().crmAOrderId, orderId, ...c }, o);
    },
  },
  {
    name: "order_crm_b process-payment",
    provider: "order_crm_b",
    url: "/api/providers/order_crm_b/process-payment",
    pay: (t, orderId, c, o) => post(t, "/api/providers/order_crm_b/process-payment", { orderId, campaignId: "camp-1", customer, billingAddress: address, lineItems, ...c }, o),
  },
  {
    name: "cart_gateway process-payment",
    provider: "cart_gateway",
    url: "/api/providers/cart_gateway/process-payment",
    pay: async (t, orderId, c, o) => {
      const cart = await post(t, "/api/providers/cart_gateway/create-cart", { orderId, customer, shippingAddress: address, lineItems: [{ itemId: "i1", quantity: 1, price: AMOUNT }] }, o);
      return post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId: cart.json().cartOrderId, orderId, ...c }, o);
    },
  },
  {
    name: "vault_gateway_b process-payment",
    provider: "vault_gateway_b",
    url: "/api/providers/vault_gateway_b/process-payment",
    pay: (t, orderId, c, o) => post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, ...c }, o),
  },
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
