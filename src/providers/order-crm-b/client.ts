import { baseUrlOf, credentialOf, decimalAmount, formEncode, providerFetch } from "../http-client.js";
import { ProviderError, type CrmProvider, type CrmRecordInput, type ProviderCall } from "../types.js";
import { PROVIDER } from "./adapter.js";

export const ORDER_CRM_B_BASE_URL = "https://api.konnektive.com";

const failure = (message: string, retryable = false) => new ProviderError(PROVIDER, message, retryable);

/** Form POST with `loginId`/`password`; the CRM answers `{ result: "SUCCESS", message }` or `{ result: "ERROR", message }`. */
async function post(call: ProviderCall, path: string, form: Record<string, string | number | undefined>): Promise<unknown> {
  const response = await providerFetch(PROVIDER, `${baseUrlOf(call.credentials, ORDER_CRM_B_BASE_URL)}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: formEncode({ loginId: credentialOf(PROVIDER, call.credentials, "apiUsername"), password: credentialOf(PROVIDER, call.credentials, "apiPassword"), ...form }),
  });
  if (response.status >= 500 || response.status === 429) throw failure(`HTTP ${response.status}`, true);
  if (response.status !== 200) throw failure(`HTTP ${response.status}`);
  let reply: { result?: string; message?: unknown };
  try {
    reply = JSON.parse(response.text) as typeof reply;
  } catch {
    throw failure("unreadable response");
  }
  if (reply?.result !== "SUCCESS") throw failure(`result ${String(reply?.result ?? "missing")}`);
  return reply.message;
}

/**
 * order_crm_b's CRM recording (an order-import API in the widely used shape, docs/providers.md):
 * `POST /order/import/` with `paySource=PREPAID` records an order paid elsewhere;
 * `POST /campaign/query/` is the connectivity check.
 */
export function createOrderCrmBCrm() {
  return {
    id: PROVIDER,
    demo: false,

    async recordOrder(input: CrmRecordInput, call: ProviderCall) {
      const billing = input.billingAddress;
      const shipping = input.shippingAddress;
      const products: Record<string, string | number> = {};
      input.lineItems.forEach((item, i) => {
        products[`product${i + 1}_id`] = item.id;
        products[`product${i + 1}_qty`] = item.quantity;
        products[`product${i + 1}_price`] = decimalAmount(item.unitPrice);
      });
      const message = (await post(call, "/order/import/", {
        campaignId: input.campaignId ?? credentialOf(PROVIDER, call.credentials, "campaignId"),
        paySource: "PREPAID",
        externalOrderId: input.orderId,
        transactionId: input.transactionId,
        currency: input.currency,
        orderTotal: decimalAmount(input.amountCents),
        emailAddress: input.customer.email,
        firstName: input.customer.firstName,
        lastName: input.customer.lastName,
        phoneNumber: input.customer.phone,
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
        ...products,
      })) as { orderId?: unknown } | null;
      if (typeof message?.orderId !== "string" || message.orderId === "") throw failure("unreadable response");
      return { crmOrderId: message.orderId };
    },

    async checkConnection(call: ProviderCall) {
      await post(call, "/campaign/query/", {});
    },
  } satisfies CrmProvider;
}
