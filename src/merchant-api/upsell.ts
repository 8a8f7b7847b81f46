import { getPaymentToken } from "../checkout/get-payment-token.js";
import type { GetPaymentTokenBody, GetPaymentTokenResponse } from "../checkout/schemas.js";
import type { Ctx } from "../ctx.js";
import { assertScope } from "../merchant-credentials/api-key-caller.js";
import { createUpsellSession } from "../upsell/create-session.js";
import type { CreateSessionBody, CreateSessionResponse } from "../upsell/schemas.js";

// The SPEC money verbs, as `/api/v1` verbs: the key's scope first (a key without it learns nothing
// of the order), then the public verb, whose merchant proof holds for the key's own brand only.

/** `POST /api/v1/upsell/sessions` with the SPEC create-session body (scope upsell:write). */
export async function createMerchantUpsellSession({ ctx, input }: { ctx: Ctx; input: CreateSessionBody }): Promise<CreateSessionResponse> {
  await assertScope(ctx, "upsell:write");
  return createUpsellSession({ ctx, input });
}

/** `POST /api/v1/payment-tokens` with the SPEC get-payment-token body (scope upsell:write). */
export async function getMerchantPaymentToken({ ctx, input }: { ctx: Ctx; input: GetPaymentTokenBody }): Promise<GetPaymentTokenResponse> {
  await assertScope(ctx, "upsell:write");
  return getPaymentToken({ ctx, input });
}
