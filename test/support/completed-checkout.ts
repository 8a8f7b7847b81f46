import { expect } from "vitest";
import type { PaymentProviderType } from "../../src/providers/types.js";
import type { TestApp } from "./app.js";
import { json } from "./app.js";
import { orderClaims, post, signToken } from "./checkout.js";
import { AMOUNT, PAY_BY_PROVIDER } from "./provider-payments.js";

/**
 * A checkout completed through the public API, as a merchant's customer does it: initialize, pay at
 * the provider's demo endpoint (with `cardNumber`, default a succeeding card), complete. `complete`
 * adds members to the completion body (another customer, line items).
 */
export async function completeCheckoutViaApi(
  t: TestApp,
  options: { provider?: PaymentProviderType; cardNumber?: string; claims?: Record<string, unknown>; complete?: Record<string, unknown> } = {},
) {
  const provider = options.provider ?? "vault_gateway_b";
  const order = orderClaims({ amount: AMOUNT, currency: "USD", ...options.claims });
  const orderId = order.orderId as string;
  expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider })).statusCode).toBe(200);
  const paid = await PAY_BY_PROVIDER[provider](t, orderId, options.cardNumber);
  const done = await post(t, "/api/checkout/complete", {
    orderId,
    transactionId: paid.transactionId,
    provider,
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: AMOUNT,
    currency: "USD",
    ...(paid.providerOrderId ? { providerOrderId: paid.providerOrderId } : {}),
    ...options.complete,
  });
  expect(done.statusCode, done.body).toBe(200);
  return { orderId, provider, transactionId: paid.transactionId, paymentMethodToken: json(done).paymentMethodToken as string, upsellUrl: json(done).upsellUrl as string | undefined };
}
