import { otherModeNotFound } from "../../merchant-credentials/errors.js";
import type { Ctx } from "../../ctx.js";
import { validationError } from "../../lib/errors.js";
import { assertScope } from "../../merchant-credentials/api-key-caller.js";
import { funnelNotFound, noSavedMethod, originalOrderNotFound, upsellWindowClosed } from "../errors.js";
import { UPSELL_WINDOW_MS } from "../create-session.js";
import { originalOrderOf } from "../store.js";
import type { CreateSessionResponse } from "../schemas.js";
import { startFunnelSession } from "./enter.js";
import { findFunnelOfBrand } from "./store.js";

export interface NamedFunnelSessionBody {
  originalOrderId: string;
  funnelId: string;
}

const textMember = (body: Record<string, unknown>, name: string): string => {
  const value = body[name];
  if (typeof value !== "string" || value.length === 0 || value.length > 200) throw validationError(`Invalid request: ${name} must be a string of 1 to 200 characters`, name);
  return value;
};

/** The `{ originalOrderId, funnelId }` form of the body, checked by hand: the SPEC body's schema is the route's. */
export function namedFunnelBody(body: unknown): NamedFunnelSessionBody | null {
  if (typeof body !== "object" || body === null || !("funnelId" in body)) return null;
  const record = body as Record<string, unknown>;
  return { originalOrderId: textMember(record, "originalOrderId"), funnelId: textMember(record, "funnelId") };
}

/**
 * `POST /api/v1/upsell/sessions { originalOrderId, funnelId }` (scope upsell:write): the key's brand's funnel (live or
 * paused: a merchant may keep a funnel for its server only; its trigger is not asked) starts the
 * order's funnel session, priced from the stored funnel. An order that already has a funnel session
 * gets it again. No step priced in the order's currency: SPEC's `skipUpsell` answer.
 */
export async function createNamedFunnelSession({ ctx, input }: { ctx: Ctx; input: NamedFunnelSessionBody }): Promise<CreateSessionResponse> {
  const actor = await assertScope(ctx, "upsell:write");
  const funnel = await findFunnelOfBrand(ctx.db, actor.brandId, input.funnelId);
  if (!funnel || funnel.status === "draft") throw funnelNotFound();
  const order = await originalOrderOf(ctx.db, { orderId: input.originalOrderId, brandId: actor.brandId });
  if (!order) throw originalOrderNotFound();
  // A key starts sessions on orders of its own mode only (issue 33): a test key never leads to a live charge.
  if (order.livemode !== actor.livemode) throw otherModeNotFound("Order", actor.livemode);
  if (!order.paymentMethodToken) throw noSavedMethod();
  if (ctx.clock.now() - order.createdAt.getTime() > UPSELL_WINDOW_MS) throw upsellWindowClosed();
  const session = await startFunnelSession(ctx, order, funnel);
  if (!session) return { success: true, skipUpsell: true, message: "No eligible upsell offers" };
  return { success: true, ...session };
}
