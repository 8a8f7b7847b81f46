import { conflict } from "../../lib/errors.js";
import { baseUrlOf, centsOf, credentialOf, decimalAmount, formEncode, providerFetch } from "../http-client.js";
import { ProviderError, type AddressInput, type ChargeOutcome, type CrmProvider, type CrmRecordInput, type PartyInput, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome } from "../types.js";
import { PROVIDER, type OrderCrmBAdapter } from "./provider.js";

export const ORDER_CRM_B_BASE_URL = "https://api.konnektive.com";

const failure = (message: string, retryable = false) => new ProviderError(PROVIDER, message, retryable);

/** What an ERROR message means when it is an answer (a decline, nothing found), not a failure of the CRM; null otherwise. */
type RefusalOf = (message: string) => string | null;

/**
 * Form POST with `loginId`/`password`; the CRM answers `{ result: "SUCCESS", message }` or
 * `{ result: "ERROR", message }`. An ERROR that `refusalOf` names is thrown as a Refusal, any other a ProviderError.
 */
async function post(call: ProviderCall, path: string, form: Record<string, string | number | undefined>, refusalOf?: RefusalOf): Promise<unknown> {
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, ORDER_CRM_B_BASE_URL)}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: formEncode({ loginId: credentialOf(PROVIDER, call.credentials, "apiUsername"), password: credentialOf(PROVIDER, call.credentials, "apiPassword"), ...form }),
    allowPrivate: call.allowPrivateUrls,
  });
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true);
  if (response.status !== 200) throw failure(`HTTP ${response.status}`);
  let reply: { result?: string; message?: unknown };
  try {
    reply = JSON.parse(response.text) as typeof reply;
  } catch {
    throw failure("unreadable response");
  }
  const refusal = refusalOf && reply?.result === "ERROR" && typeof reply.message === "string" ? refusalOf(reply.message) : null;
  if (refusal) throw new Refusal(refusal, String(reply.message));
  if (reply?.result !== "SUCCESS") throw failure(`result ${String(reply?.result ?? "missing")}`);
  return reply.message;
}

/** The customer and addresses, as both order imports (recording and payment) send them. */
function partyFields(customer: PartyInput, billing: AddressInput, shipping: AddressInput | null | undefined) {
  return {
    emailAddress: customer.email,
    firstName: customer.firstName,
    lastName: customer.lastName,
    phoneNumber: customer.phone,
    address1: billing.line1,
    address2: billing.line2,
    city: billing.city,
    state: billing.state,
    postalCode: billing.postalCode,
    country: billing.country,
    shipAddress1: shipping?.line1,
    shipAddress2: shipping?.line2,
    shipCity: shipping?.city,
    shipState: shipping?.state,
    shipPostalCode: shipping?.postalCode,
    shipCountry: shipping?.country,
    billShipSame: shipping ? 0 : 1,
  };
}

/** Line items as `product<n>_id`, `_qty`, `_price` (decimal). */
function productFields(items: { id: string; quantity: number; priceCents: number }[]): Record<string, string | number> {
  const fields: Record<string, string | number> = {};
  items.forEach((item, i) => {
    fields[`product${i + 1}_id`] = item.id;
    fields[`product${i + 1}_qty`] = item.quantity;
    fields[`product${i + 1}_price`] = decimalAmount(item.priceCents);
  });
  return fields;
}

/**
 * order_crm_b's CRM recording (an order-import API in the widely used shape, docs/providers.md):
 * `POST /order/query/` by `custom1` first (an order of the sale already there is answered), then
 * `POST /order/import/` with `paySource=PREPAID` records an order paid elsewhere;
 * `POST /campaign/query/` is the connectivity check.
 */
export function createOrderCrmBCrm() {
  return {
    id: PROVIDER,
    demo: false,

    async recordOrder(input: CrmRecordInput, call: ProviderCall) {
      // Paid at this CRM (its order carries the sale), or recorded by an earlier try whose answer was
      // lost (the import names the transaction): that order is the record, not a second one.
      const same = (await findOrders(call, input.orderId)).find((order) => order.transactionId === input.transactionId);
      if (same) return { crmOrderId: same.orderId };
      const message = (await post(call, "/order/import/", {
        campaignId: input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId"),
        paySource: "PREPAID",
        externalOrderId: input.orderId,
        // Our orderId travels in custom1 here too, so the order query above finds this import again.
        custom1: input.orderId,
        transactionId: input.transactionId,
        currency: input.currency,
        orderTotal: decimalAmount(input.amountCents),
        ...partyFields(input.customer, input.billingAddress, input.shippingAddress),
        ...productFields(input.lineItems.map((item) => ({ id: item.id, quantity: item.quantity, priceCents: item.unitPrice }))),
      })) as { orderId?: unknown } | null;
      if (typeof message?.orderId !== "string" || message.orderId === "") throw failure("unreadable response");
      return { crmOrderId: message.orderId };
    },

    async checkConnection(call: ProviderCall) {
      await post(call, "/campaign/query/", {});
    },
  } satisfies CrmProvider;
}

/** `POST /order/query/` by our orderId (`custom1`): the CRM's orders of it, each with the sale it carries. */
async function findOrders(call: ProviderCall, orderId: string): Promise<{ orderId: string; transactionId: string }[]> {
  const message = (await post(call, "/order/query/", { custom1: orderId })) as { data?: unknown } | null;
  const data = message?.data ?? [];
  if (!Array.isArray(data)) throw failure("unreadable response");
  return data.filter((order): order is { orderId: string; transactionId: string } => typeof order?.orderId === "string" && order.orderId !== "" && typeof order.transactionId === "string");
}

// ---- payment side (the CRM charges the card itself)

interface WireTransaction {
  transactionId: string;
  orderId: string;
  custom1?: string;
  responseType: string;
  totalAmount: string;
  currency?: string;
}

class Refusal extends Error {
  constructor(
    readonly reason: string,
    /** The provider's own words (its ERROR message): a decline's providerCode. */
    readonly message_: string,
  ) {
    super("refused");
  }
}

/** `POST /transactions/query/`: the first transaction matching, or null (the CRM answers none found as an ERROR). */
async function findTransaction(call: ProviderCall, form: Record<string, string>): Promise<WireTransaction | null> {
  const found = await postRefusable(call, "/transactions/query/", form, (message) => (/no transactions/i.test(message) ? "none" : null));
  const data = found.ok ? ((found.message.data as WireTransaction[] | undefined) ?? []) : [];
  return data[0] ?? null;
}

/**
 * order_crm_b's payment side: `POST /leads/import/` (initialize: a partial order),
 * `POST /order/import/` with the card (process-payment: order and charge in one call),
 * `POST /transactions/query/` (findPayment), `POST /upsale/import/` (one-click upsell on the order).
 * Our orderId travels in `custom1`. Token: the CRM order id.
 */
export function createOrderCrmB() {
  return {
    id: PROVIDER,
    demo: false,

    async initialize(input, call) {
      const message = (await post(call, "/leads/import/", {
        campaignId: credentialOf(PROVIDER, call.credentials, "campaignId"),
        custom1: input.orderId,
        emailAddress: input.customer?.email,
        firstName: input.customer?.firstName,
        lastName: input.customer?.lastName,
        phoneNumber: input.customer?.phone,
      })) as { orderId?: unknown } | null;
      if (typeof message?.orderId !== "string") throw failure("unreadable response");
      return { providerOrderId: message.orderId };
    },

    async processPayment({ card, ...input }, call) {
      // One paid CRM order per orderId, as the demo: a second payment is refused before any charge.
      const existing = (await post(call, "/order/query/", { custom1: input.orderId, orderStatus: "COMPLETE" })) as { totalResults?: number } | null;
      if ((existing?.totalResults ?? 0) > 0) throw conflict("Order already paid", "ALREADY_PAID");
      const amountCents = input.lineItems.reduce((sum, item) => sum + item.price * item.quantity, 0);
      const charged = await postForChargeWith(call, "/order/import/", {
        campaignId: input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId"),
        custom1: input.orderId,
        paySource: "CREDITCARD",
        cardNumber: card.cardNumber,
        cardMonth: card.cardExpMonth,
        cardYear: card.cardExpYear,
        cardSecurityCode: card.cardCvv,
        currency: input.currency,
        ...partyFields(input.customer, input.billingAddress, input.shippingAddress),
        ...productFields(input.lineItems.map((item) => ({ id: item.productId, quantity: item.quantity, priceCents: item.price }))),
      });
      const base = { amountCents, currency: input.currency };
      if (!charged.ok) return { ...base, providerOrderId: "", outcome: { status: "declined" as const, reason: charged.reason, providerCode: charged.providerCode } };
      const { orderId, transactionId } = charged.message as { orderId?: unknown; transactionId?: unknown };
      if (typeof orderId !== "string" || typeof transactionId !== "string") throw failure("unreadable response");
      return { ...base, providerOrderId: orderId, outcome: { status: "succeeded" as const, transactionId, paymentMethodToken: orderId, providerOrderId: orderId } };
    },

    async findPayment({ transactionId }, call): Promise<PaymentRecord | null> {
      const transaction = await findTransaction(call, { transactionId });
      if (!transaction || transaction.transactionId !== transactionId) return null;
      const status = transaction.responseType === "SUCCESS" ? "succeeded" : "failed";
      return {
        transactionId,
        orderId: transaction.custom1 ?? null,
        providerOrderId: transaction.orderId,
        status,
        amountCents: centsOf(transaction.totalAmount),
        currency: (transaction.currency ?? "USD").toUpperCase(),
        paymentMethodToken: status === "succeeded" ? transaction.orderId : "",
      };
    },

    async chargeSaved(input, call): Promise<ChargeOutcome> {
      const charged = await postForChargeWith(call, "/upsale/import/", {
        orderId: input.paymentMethodToken,
        productId: "upsell",
        productQty: 1,
        productPrice: decimalAmount(input.amountCents),
        custom1: input.orderId,
      });
      if (!charged.ok) return { status: "declined", reason: charged.reason, providerCode: charged.providerCode };
      const transactionId = charged.message.transactionId;
      if (typeof transactionId !== "string") throw failure("unreadable response");
      return { status: "succeeded", transactionId, paymentMethodToken: input.paymentMethodToken };
    },

    refund: refundTransaction,
  } satisfies OrderCrmBAdapter;
}

/** post(), with the answers `refusalOf` names returned as `{ ok: false, reason }`. */
async function postRefusable(call: ProviderCall, path: string, form: Record<string, string | number | undefined>, refusalOf: RefusalOf) {
  try {
    return { ok: true as const, message: ((await post(call, path, form, refusalOf)) ?? {}) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false as const, reason: error.reason, providerCode: error.message_.trim().slice(0, 64) || undefined };
    throw error;
  }
}

const cardDeclineOf: RefusalOf = (message) => (/declin/i.test(message) ? "card_declined" : null);
const postForChargeWith = (call: ProviderCall, path: string, form: Record<string, string | number | undefined>) => postRefusable(call, path, form, cardDeclineOf);

const refundRefusalOf: RefusalOf = (message) => (/declin/i.test(message) ? "refund_declined" : /exceed/i.test(message) ? "amount_too_large" : null);

/**
 * `POST /transactions/refund/` `transactionId` (the charge: the order's sale or an upsale),
 * `refundAmount` (decimal) and our refund id in `custom1`, as our ids travel here. The CRM takes no
 * idempotency key, so the refund is looked up first (`POST /transactions/query/` `txnType=REFUND`,
 * `custom1`): a repeat (the reconciler's) answers the refund made earlier, declined ones too. Two
 * calls for one refund at the same instant could both miss it: the reconciler repeats only refunds
 * older than a call can last. An ERROR saying declined or exceeded is a failed refund.
 */
async function refundTransaction(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
  const earlier = await findTransaction(call, { txnType: "REFUND", custom1: call.idempotencyKey });
  if (earlier && earlier.custom1 === call.idempotencyKey) {
    return earlier.responseType === "SUCCESS" ? { status: "succeeded", providerRefundId: earlier.transactionId } : { status: "failed", reason: "refund_declined" };
  }
  const refunded = await postRefusable(call, "/transactions/refund/", { transactionId: input.transactionId, refundAmount: decimalAmount(input.amountCents), custom1: call.idempotencyKey }, refundRefusalOf);
  if (!refunded.ok) return { status: "failed", reason: refunded.reason };
  const { transactionId } = refunded.message;
  if (typeof transactionId !== "string") throw failure("unreadable response");
  return { status: "succeeded", providerRefundId: transactionId };
}
