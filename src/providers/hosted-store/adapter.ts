import { AppError, conflict } from "../../lib/errors.js";
import { baseUrlOf, centsOf, credentialOf, decimalAmount, providerFetch } from "../http-client.js";
import { ProviderError, type ChargeOutcome, type OrderCharge, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome } from "../types.js";
import { PROVIDER, type HostedStoreAdapter } from "./provider.js";

/** The store Admin API version the client speaks. */
export const HOSTED_STORE_API_VERSION = "2024-10";

interface WireDraft {
  id: number | string;
  invoice_url?: string;
  status: string;
  order_id?: number | string | null;
  currency?: string;
  total_price?: string;
  note_attributes?: { name: string; value: string }[];
}
interface WireTransaction {
  id: number | string;
  kind: string;
  status: string;
  amount: string;
  currency: string;
  gateway?: string;
  /** A mandate payment's reference (orderCreateMandatePayment's paymentReferenceId). */
  payment_id?: string | null;
  error_code?: string | null;
}
interface WireRefund {
  id: number | string;
  note?: string | null;
  transactions?: WireTransaction[];
}

const failure = (message: string, retryable = false) => new ProviderError(PROVIDER, message, retryable);
const orderNotFound = () => new AppError("NOT_FOUND", "Order not found", "storeOrderId");
const orderIdOf = (draft: WireDraft) => draft.note_attributes?.find((a) => a.name === "orderId")?.value ?? null;

/**
 * JSON call with `X-Shopify-Access-Token`; null on 404; failures throw ProviderError. With `refusable`,
 * a 422 (the store refused the request as it stands) is answered as its body, `{ errors }`.
 */
async function request(call: ProviderCall, method: "GET" | "POST", path: string, body?: unknown, options: { refusable?: boolean } = {}): Promise<Record<string, unknown> | null> {
  const token = credentialOf(PROVIDER, call.credentials, "accessToken");
  const base = baseUrlOf(call.credentials, `https://${credentialOf(PROVIDER, call.credentials, "shopDomain")}`);
  const response = await providerFetch(PROVIDER, `${base}/admin/api/${HOSTED_STORE_API_VERSION}${path}`, {
    method,
    headers: { "x-shopify-access-token": token, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    allowPrivate: call.allowPrivateUrls,
  });
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true);
  if (response.status === 404) return null;
  if (response.status !== 200 && response.status !== 201 && !(options.refusable && response.status === 422)) throw failure(`HTTP ${response.status}`);
  try {
    const parsed = JSON.parse(response.text) as unknown;
    if (typeof parsed !== "object" || parsed === null) throw new Error("not an object");
    return parsed as Record<string, unknown>;
  } catch {
    throw failure("unreadable response");
  }
}

function draftOf(reply: Record<string, unknown> | null): WireDraft | null {
  const draft = reply?.draft_order as WireDraft | undefined;
  if (!reply) return null;
  if (!draft || (typeof draft.id !== "number" && typeof draft.id !== "string") || typeof draft.status !== "string") throw failure("unreadable response");
  return draft;
}

const getDraft = async (call: ProviderCall, storeOrderId: string) => (/^\d+$/.test(storeOrderId) ? draftOf(await request(call, "GET", `/draft_orders/${storeOrderId}.json`)) : null);

async function transactionsOf(call: ProviderCall, shopOrderId: string | number): Promise<WireTransaction[]> {
  const reply = await request(call, "GET", `/orders/${shopOrderId}/transactions.json`);
  const list = reply?.transactions;
  if (!Array.isArray(list)) throw failure("unreadable response");
  return list as WireTransaction[];
}

const isPayment = (t: WireTransaction) => t.kind === "sale" || t.kind === "capture";

function refundOutcomeOf(refund: WireRefund): RefundOutcome {
  const money = refund.transactions?.find((t) => t.kind === "refund");
  if (!money) throw failure("unreadable response");
  if (money.status === "success") return { status: "succeeded", providerRefundId: String(refund.id) };
  if (money.status === "pending") throw failure(`refund ${refund.id} is pending at the store`, true);
  return { status: "failed", reason: money.error_code ?? "refund_declined" };
}

/**
 * Money back on a paid store order: `POST /orders/<order_id>/refunds.json` with one `refund`
 * transaction whose parent is the charge (the checkout's sale, or an upsell's mandate payment by its
 * `payment_id`). The store takes no idempotency key for refunds, so our refund id travels in the
 * refund's `note` and the order's refunds (`GET /orders/<order_id>/refunds.json`) are searched for it
 * before one is sent: a repeat (the reconciler's) answers the first refund. Two calls for one refund
 * at the same instant could both miss it: the reconciler must repeat only refunds older than a call can last.
 * A 422 (more than is left of the payment at the store) is a failed refund.
 */
async function refundStoreOrder(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
  const draft = input.providerOrderId ? await getDraft(call, input.providerOrderId) : null;
  if (!draft || draft.order_id === null || draft.order_id === undefined) return { status: "failed", reason: "charge_not_found" };
  const path = `/orders/${draft.order_id}/refunds.json`;
  const note = `refund ${call.idempotencyKey}`;
  const listed = (await request(call, "GET", path))?.refunds;
  if (!Array.isArray(listed)) throw failure("unreadable response");
  const earlier = (listed as WireRefund[]).find((r) => r.note === note);
  if (earlier) return refundOutcomeOf(earlier);

  const parent = (await transactionsOf(call, draft.order_id)).find((t) => isPayment(t) && t.status === "success" && (String(t.id) === input.transactionId || t.payment_id === input.transactionId));
  if (!parent) return { status: "failed", reason: "charge_not_found" };
  const reply = await request(
    call,
    "POST",
    path,
    { refund: { note, notify: false, currency: input.currency, transactions: [{ parent_id: parent.id, amount: decimalAmount(input.amountCents), kind: "refund", gateway: parent.gateway }] } },
    { refusable: true },
  );
  if (reply && "errors" in reply) return { status: "failed", reason: "refund_refused" };
  const refund = reply?.refund as WireRefund | undefined;
  if (!refund || (typeof refund.id !== "number" && typeof refund.id !== "string")) throw failure("unreadable response");
  return refundOutcomeOf(refund);
}

/**
 * The real hosted store: the store's Admin REST API with draft orders (docs/providers.md). The buyer
 * pays on the draft's `invoice_url`; complete-checkout then reads the completed draft's order and
 * its transactions. Token: the draft order id. Upsells: a mandate payment against the paid order.
 */
export function createHostedStore() {
  async function createDraft(call: ProviderCall, input: { orderId: string; email?: string; currency: string; lineItems: Record<string, unknown>[] }) {
    const draft = draftOf(
      await request(call, "POST", "/draft_orders.json", {
        draft_order: { line_items: input.lineItems, email: input.email, currency: input.currency, note_attributes: [{ name: "orderId", value: input.orderId }], tags: `order:${input.orderId}` },
      }),
    );
    if (!draft?.invoice_url) throw failure("unreadable response");
    return { storeOrderId: String(draft.id), checkoutUrl: draft.invoice_url };
  }

  async function paidCharge(call: ProviderCall, storeOrderId: string, orderId: string): Promise<OrderCharge> {
    const draft = await getDraft(call, storeOrderId);
    if (!draft || orderIdOf(draft) !== orderId) throw orderNotFound();
    const amountCents = centsOf(draft.total_price ?? "");
    const currency = (draft.currency ?? "").toUpperCase();
    if (draft.status !== "completed" || draft.order_id === null || draft.order_id === undefined) throw conflict("Order is not paid");
    const transactions = (await transactionsOf(call, draft.order_id)).filter(isPayment);
    const paid = transactions.find((t) => t.status === "success");
    const failed = transactions.find((t) => t.status === "failure" || t.status === "error");
    const outcome: ChargeOutcome = paid
      ? { status: "succeeded", transactionId: String(paid.id), paymentMethodToken: storeOrderId, providerOrderId: storeOrderId }
      : failed
        ? { status: "declined", reason: "card_declined", providerCode: failed.error_code ?? undefined }
        : (() => {
            throw conflict("Order is not paid");
          })();
    return { outcome, providerOrderId: storeOrderId, amountCents, currency };
  }

  return {
    id: PROVIDER,
    demo: false,

    async initialize(input, call) {
      // A custom line for the checkout's amount: the store charges exactly what the checkout says.
      const draft = await createDraft(call, {
        orderId: input.orderId,
        email: input.customer?.email,
        currency: input.currency,
        lineItems: [{ title: input.productName, price: decimalAmount(input.amountCents), quantity: 1 }],
      });
      return { providerOrderId: draft.storeOrderId, checkoutUrl: draft.checkoutUrl };
    },

    // The store prices its variants itself; completion then checks the total against the checkout's.
    createCheckout: (input, call) =>
      createDraft(call, { orderId: input.orderId, email: input.customer.email, currency: input.currency, lineItems: input.lineItems.map((l) => ({ variant_id: l.variantId, quantity: l.quantity })) }),

    completeCheckout: ({ storeOrderId, orderId }, call) => paidCharge(call, storeOrderId, orderId),

    async confirmOrder({ storeOrderId, orderId }, call) {
      const charge = await paidCharge(call, storeOrderId, orderId);
      if (charge.outcome.status !== "succeeded") throw conflict("Order is not paid");
      return { providerOrderId: storeOrderId, orderId, status: "confirmed" as const };
    },

    async findPayment({ transactionId, providerOrderId }, call): Promise<PaymentRecord | null> {
      if (!providerOrderId) return null;
      const draft = await getDraft(call, providerOrderId);
      if (!draft || draft.order_id === null || draft.order_id === undefined) return null;
      const found = (await transactionsOf(call, draft.order_id)).find((t) => String(t.id) === transactionId && isPayment(t));
      if (!found) return null;
      const status = found.status === "success" ? "succeeded" : found.status === "pending" ? "processing" : "failed";
      return {
        transactionId,
        orderId: orderIdOf(draft),
        providerOrderId,
        status,
        amountCents: centsOf(found.amount),
        currency: found.currency.toUpperCase(),
        paymentMethodToken: status === "succeeded" ? providerOrderId : "",
      };
    },

    async chargeSaved(input, call): Promise<ChargeOutcome> {
      const draft = await getDraft(call, input.paymentMethodToken);
      if (!draft || draft.order_id === null || draft.order_id === undefined) return { status: "declined", reason: "invalid_payment_method" };
      const reply = await request(call, "POST", "/graphql.json", {
        query:
          "mutation pay($id: ID!, $key: String!, $amount: MoneyInput!) { orderCreateMandatePayment(id: $id, idempotencyKey: $key, amount: $amount) { paymentReferenceId userErrors { field message code } } }",
        variables: {
          id: `gid://shopify/Order/${draft.order_id}`,
          key: call.idempotencyKey ?? `upsell:${input.orderId}`,
          amount: { amount: decimalAmount(input.amountCents), currencyCode: input.currency },
        },
      });
      const result = (reply?.data as { orderCreateMandatePayment?: { paymentReferenceId?: string | null; userErrors?: { code?: string }[] } } | undefined)?.orderCreateMandatePayment;
      if (!result) throw failure("unreadable response");
      if (result.userErrors && result.userErrors.length > 0) {
        const code = result.userErrors[0]?.code?.toLowerCase();
        return { status: "declined", reason: code ?? "card_declined", providerCode: code };
      }
      if (!result.paymentReferenceId) throw failure("unreadable response");
      // The payment is on the draft's order: the upsell's row names it, for its refunds.
      return { status: "succeeded", transactionId: result.paymentReferenceId, paymentMethodToken: input.paymentMethodToken, providerOrderId: input.paymentMethodToken };
    },

    refund: refundStoreOrder,
  } satisfies HostedStoreAdapter;
}
