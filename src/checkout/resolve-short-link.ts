import type { Ctx } from "../ctx.js";
import { notFound } from "../lib/errors.js";
import { findShortLinkToken } from "./store.js";

/** CONTRACT §5: `/c/<code>` leads to `/checkout/<token>`; an unknown or expired code is not found. */
export async function resolveShortLink({ ctx, input }: { ctx: Ctx; input: { code: string } }): Promise<{ location: string }> {
  const token = await findShortLinkToken(ctx.db, input.code, new Date(ctx.clock.now()));
  if (!token) throw notFound("Checkout link not found");
  return { location: `/checkout/${token}` };
}
