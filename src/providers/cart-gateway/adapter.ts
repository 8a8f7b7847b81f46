import { AppError, conflict } from "../../lib/errors.js";
import { baseUrlOf, credentialOf, providerFetch } from "../http-client.js";
import { ProviderError, type ChargeOutcome, type CrmProvider, type OrderCharge, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome } from "../types.js";
import { assertExpectedCharge } from "../schemas.js";
import { PROVIDER, type CartGatewayAdapter } from "./provider.js";

/** The cart API's public address; `baseUrl` in the settings overrides it. */
export const CART_GATEWAY_BASE_URL = "https://api.cartgateway.com";

interface WireCart {
  id: string;
  externalOrderId: string;
  status: string;
  total: number;
  currency: string;
}
interface WireTransaction {
  id: string;
  cartId: string;
  externalOrderId: string;
  status: string;
  amount: number;
  currency: string;
}

const failure = (message: string, retryable = false, notCharged = false) => new ProviderError(PROVIDER, message, retryable, notCharged);

type Reply = { status: "ok"; body: Record<string, unknown> } | { status: "not_found" } | { status: "declined"; reason: string; providerCode?: string } | { status: "conflict"; code: string };

/** JSON with `Authorization: Bearer <apiKey>`; 402 is a decline, 409 a state conflict, 404 not found. */
async function request(call: ProviderCall, method: "GET" | "POST", path: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${credentialOf(PROVIDER, call.credentials, "apiKey")}` };
  if (body) headers["content-type"] = "application/json";
  if (body && call.idempotencyKey) headers["idempotency-key"] = call.idempotencyKey;
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, CART_GATEWAY_BASE_URL)}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined, allowPrivate: call.allowPrivateUrls });
  // 429: the API says it did not take the request (rate limited), so nothing was charged; a 5xx may have charged.
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true, response.status === 429);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(response.text) as Record<string, unknown>;
    if (typeof parsed !== "object" || parsed === null) throw new Error("not an object");
  } catch {
    throw failure("unreadable response");
  }
  const code = (parsed.error as { code?: string } | undefined)?.code;
  if (response.status === 200 || response.status === 201) return { status: "ok", body: parsed };
  if (response.status === 404) return { status: "not_found" };
  if (response.status === 402) return { status: "declined", reason: code ?? "card_declined", providerCode: code };
  if (response.status === 409) return { status: "conflict", code: code ?? "conflict" };
  throw failure(`HTTP ${response.status}`);
}

function cartOf(body: Record<string, unknown>): WireCart {
  const cart = body as unknown as WireCart;
  if (typeof cart.id !== "string" || typeof cart.total !== "number" || typeof cart.currency !== "string") throw failure("unreadable response");
  return cart;
}
function transactionOf(body: Record<string, unknown>): WireTransaction {
  const t = body as unknown as WireTransaction;
  if (typeof t.id !== "string" || typeof t.status !== "string" || typeof t.amount !== "number") throw failure("unreadable response");
  return t;
}

const ok = (reply: Reply) => {
  if (reply.status !== "ok") throw failure(`unexpected ${reply.status}`);
  return reply.body;
};

/**
 * `POST /v1/transactions/<id>/refunds` `{ amount, currency, reason }` with our refund id as
 * Idempotency-Key (request() sends it): the API answers a repeat with the first answer and refunds
 * nothing more, so a repeat (the reconciler's) is safe as long as the API keeps the key. Its refusals
 * are failed refunds with its code: 402 (the card's bank refused), 409 (more than is left, a charge
 * that did not succeed); 404 an unknown transaction. A refund still `pending` there is not settled yet.
 */
async function refundTransaction(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
  if (!/^[A-Za-z0-9_-]+$/.test(input.transactionId)) return { status: "failed", reason: "charge_not_found" };
  const reply = await request(call, "POST", `/v1/transactions/${input.transactionId}/refunds`, { amount: input.amountCents, currency: input.currency, reason: input.reason });
  if (reply.status === "not_found") return { status: "failed", reason: "charge_not_found" };
  if (reply.status === "declined") return { status: "failed", reason: reply.reason };
  if (reply.status === "conflict") return { status: "failed", reason: reply.code };
  const refund = reply.body as { id?: unknown; status?: unknown };
  if (typeof refund.id !== "string") throw failure("unreadable response");
  if (refund.status === "succeeded") return { status: "succeeded", providerRefundId: refund.id };
  throw failure(`refund ${refund.id} is ${String(refund.status)} at the API`, refund.status === "pending");
}

/**
 * The real cart gateway: a cart REST API (docs/providers.md). A cart is the provider order and the
 * payment method token; card payments vault the card on the cart for one-click upsells.
 */
export function createCartGateway() {
  const createCartAt = async (call: ProviderCall, input: { orderId: string; currency: string; customer?: unknown; shippingAddress?: unknown; items: { itemId: string; quantity: number; unitPrice: number }[] }) =>
    cartOf(ok(await request(call, "POST", "/v1/carts", { externalOrderId: input.orderId, currency: input.currency, customer: input.customer ?? null, shippingAddress: input.shippingAddress ?? null, items: input.items })));

  return {
    id: PROVIDER,
    demo: false,

    async initialize(input, call) {
      const items = input.lineItems.length > 0 ? input.lineItems.map((l) => ({ itemId: l.id, quantity: l.quantity, unitPrice: l.unitPrice })) : [{ itemId: "checkout", quantity: 1, unitPrice: input.amountCents }];
      const total = items.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0);
      // The cart charges the checkout's amount: one line for it when the line items do not add up.
      const cart = await createCartAt(call, {
        orderId: input.orderId,
        currency: input.currency,
        customer: input.customer,
        shippingAddress: input.shippingAddress,
        items: total === input.amountCents ? items : [{ itemId: "checkout", quantity: 1, unitPrice: input.amountCents }],
      });
      return { providerOrderId: cart.id };
    },

    async createCart(input, call) {
      const cart = await createCartAt(call, { orderId: input.orderId, currency: input.currency, customer: input.customer, shippingAddress: input.shippingAddress, items: input.lineItems.map((l) => ({ itemId: l.itemId, quantity: l.quantity, unitPrice: l.price })) });
      return { cartOrderId: cart.id };
    },

    async processPayment({ cartOrderId, orderId, card, expected }, call): Promise<OrderCharge> {
      const found = /^[A-Za-z0-9_-]+$/.test(cartOrderId) ? await request(call, "GET", `/v1/carts/${cartOrderId}`) : ({ status: "not_found" } as const);
      if (found.status === "not_found") throw new AppError("NOT_FOUND", "Order not found", "cartOrderId");
      const cart = cartOf(ok(found));
      if (cart.externalOrderId !== orderId) throw new AppError("NOT_FOUND", "Order not found", "cartOrderId");
      // The cart pays its total: one of another amount than the checkout's is refused before /pay.
      assertExpectedCharge(expected, { amountCents: cart.total, currency: cart.currency });
      const paid = await request(call, "POST", `/v1/carts/${cartOrderId}/pay`, {
        card: { number: card.cardNumber, expMonth: card.cardExpMonth, expYear: card.cardExpYear, cvc: card.cardCvv },
        saveCard: true,
      });
      const base = { providerOrderId: cart.id, amountCents: cart.total, currency: cart.currency.toUpperCase() };
      if (paid.status === "declined") return { ...base, outcome: { status: "declined", reason: paid.reason, providerCode: paid.providerCode } };
      if (paid.status === "conflict") throw conflict("Order already paid", "ALREADY_PAID");
      const transaction = transactionOf(ok(paid));
      return { ...base, outcome: { status: "succeeded", transactionId: transaction.id, paymentMethodToken: cart.id, providerOrderId: cart.id } };
    },

    async findPayment({ transactionId }, call): Promise<PaymentRecord | null> {
      if (!/^[A-Za-z0-9_-]+$/.test(transactionId)) return null;
      const reply = await request(call, "GET", `/v1/transactions/${transactionId}`);
      if (reply.status === "not_found") return null;
      const t = transactionOf(ok(reply));
      const status = t.status === "succeeded" ? "succeeded" : t.status === "pending" ? "processing" : "failed";
      return { transactionId: t.id, orderId: t.externalOrderId || null, providerOrderId: t.cartId, status, amountCents: t.amount, currency: t.currency.toUpperCase(), paymentMethodToken: status === "succeeded" ? t.cartId : "" };
    },

    async chargeSaved(input, call): Promise<ChargeOutcome> {
      if (!/^[A-Za-z0-9_-]+$/.test(input.paymentMethodToken)) return { status: "declined", reason: "invalid_payment_method" };
      const reply = await request(call, "POST", `/v1/carts/${input.paymentMethodToken}/charge-saved`, { amount: input.amountCents, currency: input.currency, externalOrderId: input.orderId });
      if (reply.status === "declined") return { status: "declined", reason: reply.reason, providerCode: reply.providerCode };
      if (reply.status === "not_found") return { status: "declined", reason: "invalid_payment_method" };
      const t = transactionOf(ok(reply));
      return { status: "succeeded", transactionId: t.id, paymentMethodToken: input.paymentMethodToken };
    },

    refund: refundTransaction,
  } satisfies CartGatewayAdapter;
}

/** cart_gateway as CRM: `POST /v1/orders/import` records a paid order (the cart's order when it was paid here). */
export function createCartGatewayCrm() {
  return {
    id: PROVIDER,
    demo: false,
    async recordOrder(input, call) {
      const body = ok(
        await request(call, "POST", "/v1/orders/import", {
          externalOrderId: input.orderId,
          transactionId: input.transactionId,
          amount: input.amountCents,
          currency: input.currency,
          customer: input.customer,
          billingAddress: input.billingAddress,
          shippingAddress: input.shippingAddress,
          items: input.lineItems.map((l) => ({ itemId: l.id, name: l.name, quantity: l.quantity, unitPrice: l.unitPrice })),
          campaignId: input.campaignId ?? null,
        }),
      );
      if (typeof body.id !== "string") throw failure("unreadable response");
      return { crmOrderId: body.id };
    },
    async checkConnection(call) {
      ok(await request(call, "GET", "/v1/account"));
    },
  } satisfies CrmProvider;
}
