import { AppError, validationError } from "../../lib/errors.js";
import { baseUrlOf, credentialOf, formEncode, providerFetch } from "../http-client.js";
import { ProviderError, type ChargeOutcome, type DisputeAnswerOutcome, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome } from "../types.js";
import { intentToken, PROVIDER, type CreateIntentInput, type IntentGatewayAdapter, type PaymentIntentStatus, type PaymentIntentView } from "./provider.js";

/** The gateway's public address; `baseUrl` in the settings overrides it. */
export const INTENT_GATEWAY_BASE_URL = "https://api.stripe.com";

/** The gateway's PaymentIntent object, as far as we read it. */
interface WireIntent {
  id: string;
  object?: string;
  client_secret?: string;
  amount: number;
  currency: string;
  status: string;
  customer?: string | { id: string } | null;
  payment_method?: string | { id: string } | null;
  metadata?: Record<string, string>;
  last_payment_error?: { code?: string; decline_code?: string } | null;
  /** 3-D Secure: the bank's page the buyer must visit, which returns to the confirmation's return_url. */
  next_action?: { type?: string; redirect_to_url?: { url?: string; return_url?: string } } | null;
}
interface WireError {
  error?: { type?: string; code?: string; decline_code?: string; payment_intent?: WireIntent };
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));
const failure = (message: string, retryable = false, notCharged = false) => new ProviderError(PROVIDER, message, retryable, notCharged);

function isIntent(value: unknown): value is WireIntent {
  const v = value as WireIntent | null;
  return typeof v === "object" && v !== null && typeof v.id === "string" && typeof v.amount === "number" && typeof v.currency === "string" && typeof v.status === "string";
}

/** The gateway's statuses onto ours: an attempt that failed leaves the intent `requires_payment_method` with an error. */
function statusOf(intent: WireIntent): PaymentIntentStatus {
  switch (intent.status) {
    case "succeeded":
    case "processing":
    case "requires_action":
      return intent.status;
    case "requires_payment_method":
      return intent.last_payment_error ? "failed" : "requires_payment_method";
    case "requires_confirmation":
    case "requires_capture":
      return "requires_payment_method";
    default:
      return "failed";
  }
}

function viewOf(intent: WireIntent): PaymentIntentView {
  const status = statusOf(intent);
  return {
    paymentIntentId: intent.id,
    clientSecret: intent.client_secret ?? "",
    orderId: intent.metadata?.orderId ?? "",
    amountCents: intent.amount,
    currency: intent.currency.toUpperCase(),
    status,
    paymentMethodId: idOf(intent.payment_method),
    declineReason: status === "failed" ? (intent.last_payment_error?.decline_code ?? intent.last_payment_error?.code ?? "card_declined") : null,
    nextActionUrl: status === "requires_action" && intent.next_action?.type === "redirect_to_url" ? (intent.next_action.redirect_to_url?.url ?? null) : null,
  };
}

type Reply = { kind: "ok"; intent: WireIntent } | { kind: "not_found" } | { kind: "card_error"; reason: string; intent?: WireIntent };
type Form = Record<string, string | number | boolean | undefined>;

/**
 * One call with the secret key as bearer; form-encoded bodies; Idempotency-Key on a POST when given
 * (else the call's). The gateway's 5xx, 429 and unreadable answers throw ProviderError; any other
 * answer is returned with its parsed body for the caller to read.
 */
async function callGateway(call: ProviderCall, method: "GET" | "POST", path: string, form?: Form, idempotencyKey?: string): Promise<{ status: number; body: unknown }> {
  const secretKey = credentialOf(PROVIDER, call.credentials, "secretKey");
  const headers: Record<string, string> = { authorization: `Bearer ${secretKey}` };
  if (form) headers["content-type"] = "application/x-www-form-urlencoded";
  const key = idempotencyKey ?? call.idempotencyKey;
  if (key && method === "POST") headers["idempotency-key"] = key;
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, INTENT_GATEWAY_BASE_URL)}${path}`, { method, headers, body: form ? formEncode(form) : undefined, allowPrivate: call.allowPrivateUrls });
  // 429: the API says it did not take the request (rate limited), so nothing was charged; a 5xx may have charged.
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true, response.status === 429);
  try {
    return { status: response.status, body: JSON.parse(response.text) as unknown };
  } catch {
    throw failure("unreadable response");
  }
}

/** A call about a payment intent: the intent, not found, or a card error; anything else throws. */
async function request(call: ProviderCall, method: "GET" | "POST", path: string, form?: Form, idempotencyKey?: string): Promise<Reply> {
  const response = await callGateway(call, method, path, form, idempotencyKey);
  const body = response.body;
  if (response.status === 200) {
    if (!isIntent(body)) throw failure("unreadable response");
    return { kind: "ok", intent: body };
  }
  const error = (body as WireError | null)?.error;
  if (response.status === 404) return { kind: "not_found" };
  if (response.status === 402 && error?.type === "card_error") {
    return { kind: "card_error", reason: error.decline_code ?? error.code ?? "card_declined", intent: isIntent(error.payment_intent) ? error.payment_intent : undefined };
  }
  // 400 invalid request, 401 bad key, 403: our request or our credentials are wrong, not the card.
  throw failure(`HTTP ${response.status} ${error?.type ?? ""}`.trim());
}

/** The gateway's Refund object, as far as we read it. */
interface WireRefund {
  id: string;
  amount: number;
  status: string;
  failure_reason?: string | null;
}

/** The gateway's refusal of a request (400 or 404 `invalid_request_error`): its code (else `fallback`); null for any other answer. */
function refusalOf(response: { status: number; body: unknown }, fallback: string): string | null {
  const error = (response.body as WireError | null)?.error;
  if ((response.status === 400 || response.status === 404) && error?.type === "invalid_request_error") return error.code ?? fallback;
  return null;
}

// The gateway's refund reasons; ours without a counterpart (`other`) are sent without one.
const WIRE_REASONS = new Set(["duplicate", "fraudulent", "requested_by_customer"]);

/**
 * `POST /v1/refunds` for a payment intent, with our refund id as Idempotency-Key: a repeat (the
 * reconciler's, within the 24 hours the gateway keeps a key) answers the same refund. A refusal of the request (already refunded, amount too large, not refundable) is a
 * failed refund with the gateway's code; a refund still `pending` at the gateway is not settled yet.
 */
async function refundIntent(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
  const form = {
    payment_intent: input.transactionId,
    amount: input.amountCents,
    reason: WIRE_REASONS.has(input.reason) ? input.reason : undefined,
    "metadata[orderId]": input.orderId,
  };
  const response = await callGateway(call, "POST", "/v1/refunds", form, call.idempotencyKey);
  const refusal = refusalOf(response, "refund_refused");
  if (refusal) return { status: "failed", reason: refusal };
  const refund = response.body as WireRefund | null;
  if (response.status !== 200 || typeof refund?.id !== "string" || typeof refund.status !== "string") throw failure(`HTTP ${response.status}`);
  if (refund.status === "succeeded") return { status: "succeeded", providerRefundId: refund.id };
  if (refund.status === "failed" || refund.status === "canceled") return { status: "failed", reason: refund.failure_reason ?? refund.status };
  throw failure(`refund ${refund.id} is ${refund.status} at the gateway`, true);
}

/**
 * A merchant's answer to a dispute: `POST /v1/disputes/<id>` with evidence (submitted at once), or
 * `POST /v1/disputes/<id>/close` to accept it. The gateway's refusal (closed already, unknown id) is
 * an outcome; an answer that is not the Dispute object throws.
 */
async function answerDispute(call: ProviderCall, providerDisputeId: string, action: "close" | { evidence: string }): Promise<DisputeAnswerOutcome> {
  if (!/^[A-Za-z0-9_]+$/.test(providerDisputeId)) return { status: "refused", reason: "resource_missing" };
  const response =
    action === "close"
      ? await callGateway(call, "POST", `/v1/disputes/${providerDisputeId}/close`, {}, `dispute-close:${providerDisputeId}`)
      : await callGateway(call, "POST", `/v1/disputes/${providerDisputeId}`, { "evidence[uncategorized_text]": action.evidence, submit: true });
  const refusal = refusalOf(response, "invalid_request");
  if (refusal) return { status: "refused", reason: refusal };
  if (response.status !== 200 || typeof (response.body as { id?: unknown } | null)?.id !== "string") throw failure(`HTTP ${response.status}`);
  return { status: "done" };
}

const cardsRefused = () =>
  validationError("Invalid request: card fields are taken in demo mode only; confirm the payment with the gateway's client SDK and the clientSecret", "cardNumber");

/**
 * The real intent gateway: a PaymentIntents-style REST API (docs/providers.md). Cards never reach
 * our server in live operation: the page confirms the intent with the gateway's SDK, and we only
 * create, read and (for upsells) charge the saved method off-session.
 */
export function createIntentGateway() {
  async function create(input: Omit<CreateIntentInput, "card">, call: ProviderCall, idempotencyKey?: string): Promise<WireIntent> {
    const created = await request(
      call,
      "POST",
      "/v1/payment_intents",
      {
        amount: input.amountCents,
        currency: input.currency.toLowerCase(),
        "automatic_payment_methods[enabled]": true,
        // Saved for one-click upsells (CONTRACT §8); the customer is created with the intent.
        setup_future_usage: "off_session",
        receipt_email: input.customer?.email,
        "metadata[orderId]": input.orderId,
        ...Object.fromEntries(Object.entries(input.metadata ?? {}).map(([k, v]) => [`metadata[${k}]`, v])),
      },
      idempotencyKey,
    );
    if (created.kind !== "ok") throw failure("payment intent not created");
    return created.intent;
  }

  async function retrieve(call: ProviderCall, id: string): Promise<WireIntent | null> {
    if (!/^[A-Za-z0-9_]+$/.test(id)) return null;
    const reply = await request(call, "GET", `/v1/payment_intents/${id}`);
    return reply.kind === "ok" ? reply.intent : null;
  }

  return {
    id: PROVIDER,
    demo: false,

    async initialize(input, call) {
      // The same checkout, amount and currency reuse the gateway's answer (a reloaded page).
      const intent = await create(
        { orderId: input.orderId, amountCents: input.amountCents, currency: input.currency, customer: input.customer?.email ? { email: input.customer.email } : null, metadata: { checkoutId: input.checkoutId } },
        call,
        `initialize:${input.checkoutId}:${input.amountCents}:${input.currency}`,
      );
      return { providerOrderId: intent.id, clientSecret: intent.client_secret ?? "" };
    },

    async findPayment({ transactionId }, call): Promise<PaymentRecord | null> {
      const intent = await retrieve(call, transactionId);
      if (!intent) return null;
      const view = viewOf(intent);
      const customerId = idOf(intent.customer);
      const status = view.status === "requires_payment_method" ? "requires_action" : view.status;
      return {
        transactionId: intent.id,
        orderId: view.orderId || null,
        providerOrderId: intent.id,
        status,
        amountCents: view.amountCents,
        currency: view.currency,
        paymentMethodToken: status === "succeeded" && view.paymentMethodId && customerId ? intentToken(view.paymentMethodId, customerId) : "",
      };
    },

    async chargeSaved(input, call): Promise<ChargeOutcome> {
      const [paymentMethodId, customerId, ...rest] = input.paymentMethodToken.split("|");
      if (!paymentMethodId || !customerId || rest.length > 0) return { status: "declined", reason: "invalid_payment_method" };
      const reply = await request(call, "POST", "/v1/payment_intents", {
        amount: input.amountCents,
        currency: input.currency.toLowerCase(),
        customer: customerId,
        payment_method: paymentMethodId,
        off_session: true,
        confirm: true,
        "metadata[orderId]": input.orderId,
        "metadata[originalOrderId]": input.originalOrderId,
      });
      if (reply.kind === "card_error") return { status: "declined", reason: reply.reason, providerCode: reply.reason };
      if (reply.kind !== "ok") throw failure("saved charge not created");
      const status = statusOf(reply.intent);
      if (status === "succeeded") return { status: "succeeded", transactionId: reply.intent.id, paymentMethodToken: input.paymentMethodToken, providerOrderId: reply.intent.id };
      if (status === "requires_action") return { status: "requires_action", transactionId: reply.intent.id, clientSecret: reply.intent.client_secret };
      if (status === "failed") {
        const reason = viewOf(reply.intent).declineReason ?? "card_declined";
        return { status: "declined", reason, providerCode: reason };
      }
      throw failure(`unexpected status ${reply.intent.status}`);
    },

    refund: refundIntent,
    acceptDispute: ({ providerDisputeId }, call) => answerDispute(call, providerDisputeId, "close"),
    submitDisputeEvidence: ({ providerDisputeId, evidence }, call) => answerDispute(call, providerDisputeId, { evidence }),

    async createIntent(input, call) {
      if (input.card) throw cardsRefused();
      return viewOf(await create(input, call));
    },

    async retrieveIntent(paymentIntentId, call) {
      const intent = await retrieve(call, paymentIntentId);
      return intent ? viewOf(intent) : null;
    },

    async confirmIntent({ paymentIntentId, card }, call) {
      if (card) throw cardsRefused();
      const intent = await retrieve(call, paymentIntentId);
      if (!intent) throw new AppError("NOT_FOUND", "Payment intent not found", "paymentIntentId");
      return viewOf(intent);
    },
  } satisfies IntentGatewayAdapter;
}
