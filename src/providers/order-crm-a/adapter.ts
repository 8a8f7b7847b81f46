import { AppError, conflict } from "../../lib/errors.js";
import { baseUrlOf, centsOf, credentialOf, decimalAmount, providerFetch } from "../http-client.js";
import {
  ProviderError,
  type AddressInput,
  type CardInput,
  type ChargeOutcome,
  type CrmProvider,
  type CrmRecordInput,
  type OrderCharge,
  type PartyInput,
  type PaymentRecord,
  type ProviderCall,
  type RefundInput,
  type RefundOutcome,
} from "../types.js";
import { assertExpectedCharge } from "../schemas.js";
import { PROVIDER, type OrderCrmAAdapter } from "./provider.js";

/** The CRM's public address (accounts usually have their own host: set `baseUrl`). */
export const ORDER_CRM_A_BASE_URL = "https://api.sticky.io";

const failure = (message: string, retryable = false, notCharged = false) => new ProviderError(PROVIDER, message, retryable, notCharged);

/** The CRM's `response_code`s we read as answers (docs/providers.md); any other is a failure. */
const CODE = { ok: "100", noOrders: "333", unknownOrder: "350", refundTooLarge: "600", declined: "800" } as const;

type Reply = Record<string, unknown> & { response_code: string };

/**
 * JSON call with HTTP basic auth `apiUsername:apiPassword`. The CRM answers HTTP 200 with a
 * `response_code`: "100" on success. The codes listed in `answers` are returned (a decline, an
 * unknown order); any other (bad login, bad request) is a ProviderError.
 */
async function send(call: ProviderCall, path: string, body: Record<string, unknown>, answers: readonly string[] = []): Promise<Reply> {
  const auth = Buffer.from(`${credentialOf(PROVIDER, call.credentials, "apiUsername")}:${credentialOf(PROVIDER, call.credentials, "apiPassword")}`).toString("base64");
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, ORDER_CRM_A_BASE_URL)}${path}`, {
    method: "POST",
    headers: { authorization: `Basic ${auth}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    allowPrivate: call.allowPrivateUrls,
  });
  // 429: the API says it did not take the request (rate limited), so nothing was charged; a 5xx may have charged.
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true, response.status === 429);
  if (response.status !== 200) throw failure(`HTTP ${response.status}`);
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    throw failure("unreadable response");
  }
  const code = typeof reply === "object" && reply !== null ? String(reply.response_code ?? "missing") : "missing";
  if (code !== CODE.ok && !answers.includes(code)) throw failure(`response_code ${code}`);
  return { ...reply, response_code: code };
}

const post = (call: ProviderCall, path: string, body: Record<string, unknown>) => send(call, path, body);

/** The customer and addresses as the CRM's order calls take them (the shipping address defaults to the billing one). */
function partyFields(customer: PartyInput | null, billing: AddressInput | null, shipping: AddressInput | null) {
  const ship = shipping ?? billing;
  return {
    email: customer?.email ?? "",
    firstName: customer?.firstName ?? "",
    lastName: customer?.lastName ?? "",
    phone: customer?.phone ?? "",
    billingFirstName: customer?.firstName ?? "",
    billingLastName: customer?.lastName ?? "",
    billingAddress1: billing?.line1 ?? "",
    billingAddress2: billing?.line2 ?? "",
    billingCity: billing?.city ?? "",
    billingState: billing?.state ?? "",
    billingZip: billing?.postalCode ?? "",
    billingCountry: billing?.country ?? "",
    shippingAddress1: ship?.line1 ?? "",
    shippingAddress2: ship?.line2 ?? "",
    shippingCity: ship?.city ?? "",
    shippingState: ship?.state ?? "",
    shippingZip: ship?.postalCode ?? "",
    shippingCountry: ship?.country ?? "",
  };
}

const offersOf = (items: { id: string; name?: string; quantity: number; unitPrice: number }[]) =>
  items.map((item) => ({ product_id: item.id, name: item.name ?? item.id, quantity: item.quantity, price: decimalAmount(item.unitPrice) }));

/**
 * order_crm_a's CRM recording (an order-CRM REST API in the widely used shape, docs/providers.md):
 * `POST /api/v1/new_order` records the order paid elsewhere as an offline sale;
 * `POST /api/v1/validate_credentials` is the connectivity check.
 */
export function createOrderCrmACrm() {
  return {
    id: PROVIDER,
    demo: false,

    async recordOrder(input: CrmRecordInput, call: ProviderCall) {
      // Paid at this CRM (its order carries the transaction), or recorded by an earlier try whose
      // answer was lost (its notes name the transaction): that order is the record, not a second one.
      const existing = await findOrders(call, input.orderId);
      const same = existing.find((o) => o.transaction_id === input.transactionId || o.notes === `transaction ${input.transactionId}`);
      if (same) return { crmOrderId: String(same.order_id) };
      const campaignId = input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId");
      const reply = await post(call, "/api/v1/new_order", {
        campaignId,
        tranType: "Sale",
        // Paid at our payment provider: recorded, not charged again.
        creditCardType: "offline",
        externalOrderId: input.orderId,
        notes: `transaction ${input.transactionId}`,
        currency: input.currency,
        ...partyFields(input.customer, input.billingAddress, input.shippingAddress),
        offers: offersOf(input.lineItems),
        total: decimalAmount(input.amountCents),
      });
      return { crmOrderId: orderIdOf(reply) };
    },

    async checkConnection(call: ProviderCall) {
      await post(call, "/api/v1/validate_credentials", {});
    },
  } satisfies CrmProvider;
}

// ---- payment side (the CRM charges the card itself)

/** `order_view`'s answer, as far as we read it. */
interface WireOrder {
  order_id: string;
  /** `pending` (not paid), `approved` (paid), `declined`, `confirmed`, `refunded`, `partially_refunded`. */
  order_status: string;
  external_order_id: string;
  order_total: string;
  currency: string;
  transaction_id: string | null;
  refunds: { refund_id: string; amount: string; status: string; notes: string }[];
}

const PAID_STATUSES = new Set(["approved", "confirmed", "partially_refunded", "refunded"]);

function orderIdOf(reply: Reply): string {
  const id = reply.order_id;
  if (typeof id !== "string" && typeof id !== "number") throw failure("unreadable response");
  return String(id);
}

/** `POST /api/v1/order_find` by our order id (`external_order_id`): the CRM's orders of it, each as `order_view` shows it (333: none). */
async function findOrders(call: ProviderCall, orderId: string): Promise<(WireOrder & { notes?: string })[]> {
  const reply = await send(call, "/api/v1/order_find", { campaign_id: "all", criteria: { external_order_id: orderId }, return_type: "order_view" }, [CODE.noOrders]);
  if (reply.response_code === CODE.noOrders) return [];
  if (!Array.isArray(reply.data)) throw failure("unreadable response");
  return reply.data as (WireOrder & { notes?: string })[];
}

/** `POST /api/v1/order_view` `{ order_id }`: the order, or null when the CRM does not know it (350). */
async function viewOrder(call: ProviderCall, crmOrderId: string): Promise<WireOrder | null> {
  const reply = await send(call, "/api/v1/order_view", { order_id: crmOrderId }, [CODE.unknownOrder]);
  if (reply.response_code === CODE.unknownOrder) return null;
  const order = reply as unknown as WireOrder;
  const readable = typeof order.order_status === "string" && typeof order.order_total === "string" && /^\d{1,10}(\.\d{1,2})?$/.test(order.order_total) && typeof order.currency === "string" && Array.isArray(order.refunds ?? []);
  if (!readable) throw failure("unreadable response");
  return { ...order, order_id: String(order.order_id), refunds: order.refunds ?? [] };
}

/** The pending CRM order of `orderId` (our order id travels as `externalOrderId`): another order's is simply not found. */
async function orderOf(call: ProviderCall, crmAOrderId: string, orderId: string): Promise<WireOrder> {
  const order = await viewOrder(call, crmAOrderId);
  if (!order || order.external_order_id !== orderId) throw new AppError("NOT_FOUND", "Order not found", "crmAOrderId");
  return order;
}

/** The CRM's card type names, from the number's leading digits (it asks for the type beside the number). */
function cardTypeOf(digits: string): string {
  if (/^4/.test(digits)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(digits)) return "master";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^6/.test(digits)) return "discover";
  return "other";
}

/** A decline's reason in our words: the CRM's `decline_reason` in lower case with `_` for spaces, else `card_declined`. */
const declineReasonOf = (reply: Reply) =>
  typeof reply.decline_reason === "string" && reply.decline_reason.trim() !== "" ? reply.decline_reason.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_") : "card_declined";

/** A new CRM order waiting for its card (`creditCardType: "pending"`; the recording sends `offline` for one paid elsewhere). */
async function newPendingOrder(call: ProviderCall, input: { orderId: string; campaignId?: string; currency: string; customer: PartyInput | null; billing: AddressInput | null; shipping: AddressInput | null; offers: ReturnType<typeof offersOf>; totalCents: number }) {
  const reply = await post(call, "/api/v1/new_order", {
    campaignId: input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId"),
    tranType: "Sale",
    creditCardType: "pending",
    externalOrderId: input.orderId,
    currency: input.currency,
    ...partyFields(input.customer, input.billing, input.shipping),
    offers: input.offers,
    total: decimalAmount(input.totalCents),
  });
  return orderIdOf(reply);
}

/**
 * order_crm_a's payment side (docs/providers.md "order_crm_a client"): `new_order` with
 * `creditCardType: "pending"` (initialize, create-order: the CRM order to pay), `order_view` (the
 * order, its charge and its refunds), `order_payment` (the card charge of that order), `new_upsell`
 * (a one-click charge added to the original order with the card the CRM keeps), `order_refund`.
 * Our order id travels as `externalOrderId`. Token: the CRM order id (SPEC: add-to-order).
 */
export function createOrderCrmA() {
  return {
    id: PROVIDER,
    demo: false,

    async initialize(input, call) {
      const lines = input.lineItems.length > 0 ? input.lineItems : [];
      const sum = lines.reduce((total, l) => total + l.quantity * l.unitPrice, 0);
      // The CRM charges the order's total: one line for the checkout's amount when the items do not add up to it.
      const items = sum === input.amountCents && lines.length > 0 ? lines : [{ id: "checkout", name: input.productName, quantity: 1, unitPrice: input.amountCents }];
      const providerOrderId = await newPendingOrder(call, {
        orderId: input.orderId,
        currency: input.currency,
        customer: input.customer,
        billing: input.billingAddress,
        shipping: input.shippingAddress,
        offers: offersOf(items),
        totalCents: input.amountCents,
      });
      return { providerOrderId };
    },

    async createOrder(input, call) {
      const crmAOrderId = await newPendingOrder(call, {
        orderId: input.orderId,
        campaignId: input.campaignId,
        currency: input.currency,
        customer: input.customer,
        billing: input.billingAddress,
        shipping: input.shippingAddress,
        offers: offersOf(input.lineItems.map((l) => ({ id: l.productId, quantity: l.quantity, unitPrice: l.price }))),
        totalCents: input.totalCents,
      });
      return { crmAOrderId };
    },

    async processPayment({ crmAOrderId, orderId, card, expected }, call): Promise<OrderCharge> {
      const order = await orderOf(call, crmAOrderId, orderId);
      // One paid CRM order per order, as the demo: a paid one is refused before any charge.
      if (order.order_status !== "pending") throw conflict("Order already paid", "ALREADY_PAID");
      const base = { providerOrderId: order.order_id, amountCents: centsOf(order.order_total), currency: order.currency.toUpperCase() };
      // The CRM charges the order's total: one of another amount than the checkout's is refused before order_payment.
      assertExpectedCharge(expected, base);
      const reply = await send(call, "/api/v1/order_payment", { order_id: order.order_id, tranType: "Sale", ...cardFields(card) }, [CODE.declined]);
      if (reply.response_code === CODE.declined) return { ...base, outcome: { status: "declined", reason: declineReasonOf(reply), providerCode: declineReasonOf(reply) } };
      const transactionId = reply.transactionID;
      if (typeof transactionId !== "string" || transactionId === "") throw failure("unreadable response");
      return { ...base, outcome: { status: "succeeded", transactionId, paymentMethodToken: order.order_id, providerOrderId: order.order_id } };
    },

    async confirmOrder({ crmAOrderId, orderId }, call) {
      const order = await orderOf(call, crmAOrderId, orderId);
      if (!PAID_STATUSES.has(order.order_status)) throw conflict("Order is not paid");
      // The CRM fulfils paid orders itself: nothing to send.
      return { providerOrderId: order.order_id, orderId, status: "confirmed" as const };
    },

    /** Needs the CRM order (the checkout's providerOrderId): the CRM finds charges by order, not by transaction. */
    async findPayment({ transactionId, providerOrderId }, call): Promise<PaymentRecord | null> {
      if (!providerOrderId) return null;
      const order = await viewOrder(call, providerOrderId);
      if (!order || order.transaction_id !== transactionId) return null;
      const status = PAID_STATUSES.has(order.order_status) ? "succeeded" : order.order_status === "pending" ? "requires_action" : "failed";
      return {
        transactionId,
        orderId: order.external_order_id || null,
        providerOrderId: order.order_id,
        status,
        amountCents: centsOf(order.order_total),
        currency: order.currency.toUpperCase(),
        paymentMethodToken: status === "succeeded" ? order.order_id : "",
      };
    },

    async chargeSaved(input, call): Promise<ChargeOutcome> {
      // The CRM takes no idempotency key: the key travels in the upsell order's notes, and an upsell
      // order already made with it (our request died after the CRM's answer) is answered again.
      const note = call.idempotencyKey ? `charge ${call.idempotencyKey}` : undefined;
      if (note) {
        const made = (await findOrders(call, input.orderId)).find((o) => o.notes === note && o.transaction_id);
        if (made) return { status: "succeeded", transactionId: made.transaction_id!, paymentMethodToken: input.paymentMethodToken, providerOrderId: String(made.order_id) };
      }
      const reply = await send(
        call,
        "/api/v1/new_upsell",
        {
          previousOrderId: input.paymentMethodToken,
          campaignId: credentialOf(PROVIDER, call.credentials, "campaignId"),
          externalOrderId: input.orderId,
          currency: input.currency,
          offers: [{ product_id: "upsell", name: "upsell", quantity: 1, price: decimalAmount(input.amountCents) }],
          total: decimalAmount(input.amountCents),
          notes: note,
        },
        [CODE.declined, CODE.unknownOrder],
      );
      if (reply.response_code === CODE.unknownOrder) return { status: "declined", reason: "invalid_payment_method" };
      if (reply.response_code === CODE.declined) return { status: "declined", reason: declineReasonOf(reply), providerCode: declineReasonOf(reply) };
      const transactionId = reply.transactionID;
      if (typeof transactionId !== "string" || transactionId === "") throw failure("unreadable response");
      // The upsell is its own CRM order, linked to the original: its refunds name it.
      return { status: "succeeded", transactionId, paymentMethodToken: input.paymentMethodToken, providerOrderId: orderIdOf(reply) };
    },

    refund: refundOrder,
  } satisfies OrderCrmAAdapter;
}

/** The card as the CRM's payment calls take it: number, type, `expirationDate` MMYY, `CVV`. Sent, never kept. */
const cardFields = (card: CardInput) => ({
  creditCardType: cardTypeOf(card.cardNumber),
  creditCardNumber: card.cardNumber,
  expirationDate: `${card.cardExpMonth.padStart(2, "0")}${card.cardExpYear.slice(-2)}`,
  CVV: card.cardCvv,
});

/**
 * `POST /api/v1/order_refund` `{ order_id, amount (decimal), keep_recurring: 1, notes: "refund <our
 * refund id>" }` on the charge's CRM order (the checkout's order, or an upsell's own order). The CRM
 * takes no idempotency key, so the order's refunds (`order_view`) are searched for that note first: a
 * repeat (the reconciler's) answers the refund made earlier, a declined one too. Two calls for one
 * refund at the same instant could both miss it: the reconciler repeats only refunds older than a call
 * can last. Codes: 800 declined → failed `refund_declined`; 600 more than is left → failed
 * `amount_too_large`; 350 (and an order whose charge is another transaction) → failed `charge_not_found`.
 */
async function refundOrder(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
  const note = `refund ${call.idempotencyKey}`;
  const order = input.providerOrderId ? await viewOrder(call, input.providerOrderId) : null;
  if (!order || order.transaction_id !== input.transactionId) return { status: "failed", reason: "charge_not_found" };
  const earlier = order.refunds.find((r) => r.notes === note);
  if (earlier) return earlier.status === "approved" ? { status: "succeeded", providerRefundId: String(earlier.refund_id) } : { status: "failed", reason: "refund_declined" };
  const reply = await send(call, "/api/v1/order_refund", { order_id: order.order_id, amount: decimalAmount(input.amountCents), keep_recurring: 1, notes: note }, [CODE.declined, CODE.refundTooLarge, CODE.unknownOrder]);
  if (reply.response_code === CODE.declined) return { status: "failed", reason: "refund_declined" };
  if (reply.response_code === CODE.refundTooLarge) return { status: "failed", reason: "amount_too_large" };
  if (reply.response_code === CODE.unknownOrder) return { status: "failed", reason: "charge_not_found" };
  const refundId = reply.refund_id;
  if (typeof refundId !== "string" && typeof refundId !== "number") throw failure("unreadable response");
  return { status: "succeeded", providerRefundId: String(refundId) };
}
