import { newId } from "../lib/ids.js";
import { baseUrlOf, centsOf, credentialOf, decimalAmount, formEncode, providerFetch } from "./http-client.js";
import { ProviderError, type ChargeOutcome, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome } from "./types.js";
import { vaultToken, type VaultGatewayAdapter, type VaultGatewayId } from "./vault-gateway-a/provider.js";

/** The direct-post gateways' public address; `baseUrl` in the settings overrides it. */
export const VAULT_GATEWAY_BASE_URL = "https://secure.nmi.com";

/**
 * The wire of both vault gateways (a direct-post API in the widely used shape, docs/providers.md),
 * shared by vault-gateway-a/adapter.ts and vault-gateway-b/adapter.ts with their own id and prefix:
 * `POST /api/transact.php` (form: security_key, type=sale, card or customer_vault_id, amount as
 * decimal text) answers `response=1|2|3&responsetext=…&transactionid=…&customer_vault_id=…`;
 * `POST /api/query.php` (security_key, transaction_id) answers XML. Token `<customerVaultId>|<transactionId>`.
 * Refunds are `type=void` (a whole unsettled sale) or `type=refund` (a settled one, `orderid` = our refund id) on transact.php.
 */
export function createDirectPostVaultGateway(id: VaultGatewayId, prefix: string) {
  const failure = (message: string, retryable = false) => new ProviderError(id, message, retryable);

  async function post(call: ProviderCall, path: string, form: Record<string, string | number | undefined>) {
    const securityKey = credentialOf(id, call.credentials, "securityKey");
    const response = await providerFetch(id, `${baseUrlOf(call.credentials, VAULT_GATEWAY_BASE_URL)}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: formEncode({ security_key: securityKey, ...form }),
      allowPrivate: call.allowPrivateUrls,
    });
    if (response.status >= 500) throw failure(`HTTP ${response.status}`, true);
    if (response.status !== 200) throw failure(`HTTP ${response.status}`);
    return response.text;
  }

  const transactReply = async (call: ProviderCall, form: Record<string, string | number | undefined>) => new URLSearchParams(await post(call, "/api/transact.php", form));

  /** transact.php: 1 approved, 2 declined, 3 error (bad key, bad request): a failure, not a decline. */
  async function transact(call: ProviderCall, form: Record<string, string | number | undefined>): Promise<ChargeOutcome> {
    const reply = await transactReply(call, form);
    const code = reply.get("response");
    const transactionId = reply.get("transactionid") ?? "";
    if (code === "1" && transactionId) {
      const vaultId = reply.get("customer_vault_id") || (typeof form.customer_vault_id === "string" ? form.customer_vault_id : "");
      return { status: "succeeded", transactionId, paymentMethodToken: vaultId ? vaultToken(vaultId, transactionId) : undefined };
    }
    if (code === "2") return { status: "declined", reason: "card_declined", providerCode: reply.get("response_code") ?? undefined };
    throw failure(code === "3" ? "gateway error" : "unreadable response");
  }

  const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim() ?? null;

  /** The sale as the gateway holds it, with its `condition` (`pendingsettlement` until the nightly settlement). */
  async function querySale(call: ProviderCall, transactionId: string): Promise<{ payment: PaymentRecord; condition: string } | null> {
    const xml = await post(call, "/api/query.php", { transaction_id: transactionId });
    if (!xml.includes("<nm_response")) throw failure("unreadable response");
    const transaction = /<transaction>([\s\S]*?)<\/transaction>/.exec(xml)?.[1];
    if (!transaction || tag(transaction, "transaction_id") !== transactionId) return null;
    const condition = tag(transaction, "condition") ?? "";
    const amountCents = centsOf(tag(transaction, "amount") ?? "");
    if (!Number.isFinite(amountCents)) throw failure("unreadable response");
    const succeeded = ["pendingsettlement", "complete", "pending"].includes(condition) && tag(transaction, "success") !== "0";
    const vaultId = tag(transaction, "customerid");
    const payment: PaymentRecord = {
      transactionId,
      orderId: tag(transaction, "order_id") || null,
      providerOrderId: null,
      status: succeeded ? "succeeded" : "failed",
      amountCents,
      currency: (tag(transaction, "currency") ?? "").toUpperCase(),
      paymentMethodToken: succeeded && vaultId ? vaultToken(vaultId, transactionId) : "",
    };
    return { payment, condition };
  }

  const query = async (call: ProviderCall, transactionId: string) => (await querySale(call, transactionId))?.payment ?? null;

  /** The gateway's refusal text as a reason: `Refund declined` → `refund_declined`. */
  const reasonOf = (text: string | null) => (text ?? "").trim().toLowerCase().replace(/\s+/g, "_") || "refund_declined";

  /** The refund sent earlier with `reference` as its order id (query.php `order_id`), or null. */
  async function findRefund(call: ProviderCall, reference: string): Promise<RefundOutcome | null> {
    const xml = await post(call, "/api/query.php", { order_id: reference, action_type: "refund" });
    if (!xml.includes("<nm_response")) throw failure("unreadable response");
    const transaction = /<transaction>([\s\S]*?)<\/transaction>/.exec(xml)?.[1];
    if (!transaction || tag(transaction, "order_id") !== reference) return null;
    if (tag(transaction, "success") === "1") return { status: "succeeded", providerRefundId: tag(transaction, "transaction_id") ?? "" };
    return { status: "failed", reason: reasonOf(tag(transaction, "response_text")) };
  }

  /**
   * Money back on a sale. An unsettled sale is voided, whole (a void takes no amount and moves no
   * money); a part of it is refused here, before anything is sent, as `not_settled`: whether the
   * gateway refunds before settlement depends on the processor, so we never rely on it.
   * Exactly once per refund id, also on a repeat (the reconciler's): the gateway has no idempotency
   * key, so the first call's traces answer a repeat. A voided sale is `canceled`: a void is whole, and
   * our reservation lets no other refund of the sale run beside it, so it was this refund's (or one
   * made in the gateway's own panel, which gave all the money back just the same). A refund
   * carries our refund id as its `orderid`, and is looked up by it (query.php `order_id`) before one
   * is sent. Two calls for one refund at the same instant could both miss the lookup: the reconciler
   * must repeat only refunds older than a call can last.
   */
  async function refund(input: RefundInput, call: ProviderCall): Promise<RefundOutcome> {
    if (!call.idempotencyKey) throw failure("a refund needs an idempotency key");
    const sale = await querySale(call, input.transactionId);
    if (!sale) return { status: "failed", reason: "charge_not_found" };
    if (sale.condition === "canceled") {
      return input.amountCents === sale.payment.amountCents ? { status: "succeeded", providerRefundId: input.transactionId } : { status: "failed", reason: "voided" };
    }
    const isUnsettled = sale.condition === "pendingsettlement";
    // Before settlement nothing can have been refunded, so the whole remaining amount is the sale's.
    if (isUnsettled && input.amountCents !== sale.payment.amountCents) return { status: "failed", reason: "not_settled" };
    if (!isUnsettled) {
      const earlier = await findRefund(call, call.idempotencyKey);
      if (earlier) return earlier;
    }
    const reply = await transactReply(
      call,
      isUnsettled
        ? { type: "void", transactionid: input.transactionId }
        : { type: "refund", transactionid: input.transactionId, amount: decimalAmount(input.amountCents), orderid: call.idempotencyKey },
    );
    const code = reply.get("response");
    const providerRefundId = reply.get("transactionid") ?? "";
    if (code === "1" && providerRefundId) return { status: "succeeded", providerRefundId };
    if (code === "2") return { status: "failed", reason: reasonOf(reply.get("responsetext")) };
    throw failure(code === "3" ? "gateway error" : "unreadable response");
  }

  return {
    id,
    demo: false,

    // The gateway has no order object: the provider order id is ours, for the checkout row.
    initialize: async () => ({ providerOrderId: newId(`${prefix}_ord`) }),

    findPayment: async ({ transactionId }, call) => query(call, transactionId),

    refund,

    async chargeSaved(input, call) {
      const [vaultId] = input.paymentMethodToken.split("|");
      if (!vaultId) return { status: "declined", reason: "invalid_payment_method" };
      return transact(call, { type: "sale", customer_vault_id: vaultId, amount: decimalAmount(input.amountCents), currency: input.currency, orderid: input.orderId });
    },

    async processPayment(input, call) {
      const billing = input.billingAddress;
      return transact(call, {
        type: "sale",
        amount: decimalAmount(input.amountCents),
        currency: input.currency,
        orderid: input.orderId,
        ccnumber: input.card.cardNumber,
        ccexp: `${input.card.cardExpMonth.padStart(2, "0")}${input.card.cardExpYear.slice(-2)}`,
        cvv: input.card.cardCvv,
        customer_vault: "add_customer",
        first_name: input.customer?.firstName,
        last_name: input.customer?.lastName,
        email: input.customer?.email,
        address1: billing?.line1,
        city: billing?.city,
        state: billing?.state,
        zip: billing?.postalCode,
        country: billing?.country,
      });
    },

    async findTokenPayment(paymentMethodToken, call) {
      const [vaultId, transactionId, ...rest] = paymentMethodToken.split("|");
      if (!vaultId || !transactionId || rest.length > 0) return null;
      const payment = await query(call, transactionId);
      return payment && payment.paymentMethodToken === paymentMethodToken ? payment : null;
    },
  } satisfies VaultGatewayAdapter;
}
