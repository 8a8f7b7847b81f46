import { baseUrlOf, credentialOf, decimalAmount, providerFetch } from "../http-client.js";
import { ProviderError, type CrmProvider, type CrmRecordInput, type ProviderCall } from "../types.js";
import { PROVIDER } from "./provider.js";

/** The CRM's public address (accounts usually have their own host: set `baseUrl`). */
export const ORDER_CRM_A_BASE_URL = "https://api.sticky.io";

const failure = (message: string, retryable = false) => new ProviderError(PROVIDER, message, retryable);

/** JSON call with HTTP basic auth `apiUsername:apiPassword`; the CRM answers `response_code: "100"` on success. */
async function post(call: ProviderCall, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const auth = Buffer.from(`${credentialOf(PROVIDER, call.credentials, "apiUsername")}:${credentialOf(PROVIDER, call.credentials, "apiPassword")}`).toString("base64");
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, ORDER_CRM_A_BASE_URL)}${path}`, {
    method: "POST",
    headers: { authorization: `Basic ${auth}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    allowPrivate: call.allowPrivateUrls,
  });
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true);
  if (response.status !== 200) throw failure(`HTTP ${response.status}`);
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    throw failure("unreadable response");
  }
  if (typeof reply !== "object" || reply === null || String(reply.response_code) !== "100") throw failure(`response_code ${String(reply?.response_code ?? "missing")}`);
  return reply;
}

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
      const billing = input.billingAddress;
      const shipping = input.shippingAddress ?? billing;
      const campaignId = input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId");
      const reply = await post(call, "/api/v1/new_order", {
        campaignId,
        tranType: "Sale",
        // Paid at our payment provider: recorded, not charged again.
        creditCardType: "offline",
        externalOrderId: input.orderId,
        notes: `transaction ${input.transactionId}`,
        currency: input.currency,
        email: input.customer.email,
        firstName: input.customer.firstName ?? "",
        lastName: input.customer.lastName ?? "",
        phone: input.customer.phone ?? "",
        billingFirstName: input.customer.firstName ?? "",
        billingLastName: input.customer.lastName ?? "",
        billingAddress1: billing.line1,
        billingAddress2: billing.line2 ?? "",
        billingCity: billing.city,
        billingState: billing.state,
        billingZip: billing.postalCode,
        billingCountry: billing.country,
        shippingAddress1: shipping.line1,
        shippingAddress2: shipping.line2 ?? "",
        shippingCity: shipping.city,
        shippingState: shipping.state,
        shippingZip: shipping.postalCode,
        shippingCountry: shipping.country,
        offers: input.lineItems.map((item) => ({ product_id: item.id, name: item.name ?? item.id, quantity: item.quantity, price: decimalAmount(item.unitPrice) })),
        total: decimalAmount(input.amountCents),
      });
      const orderId = reply.order_id;
      if (typeof orderId !== "string" && typeof orderId !== "number") throw failure("unreadable response");
      return { crmOrderId: String(orderId) };
    },

    async checkConnection(call: ProviderCall) {
      await post(call, "/api/v1/validate_credentials", {});
    },
  } satisfies CrmProvider;
}
