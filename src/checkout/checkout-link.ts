import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { randomToken } from "../lib/ids.js";
import type { CheckoutClaims } from "./schemas.js";
import { insertShortLink } from "./store.js";
import { signCheckoutToken } from "./token.js";

export const CHECKOUT_LINK_LIFETIME_SECONDS = 3600;

export interface CheckoutLink {
  token: string;
  code: string;
  checkoutUrl: string;
  expiresAt: number;
}

/**
 * Signs a checkout token and stores its short link: the one way both the demo token generator and
 * the administration link generator make links. `db` may be the caller's transaction.
 */
export async function issueCheckoutLink(
  ctx: Pick<Ctx, "config" | "clock" | "db">,
  { claims, brandId, db = ctx.db, lifetimeSeconds = CHECKOUT_LINK_LIFETIME_SECONDS }: { claims: Omit<CheckoutClaims, "exp" | "iat">; brandId: string; db?: Db; lifetimeSeconds?: number },
): Promise<CheckoutLink> {
  const { token, expiresAt } = await signCheckoutToken(ctx, claims, lifetimeSeconds);
  // 12 random bytes = 96 bits: short links must not be guessable (CONTRACT §5).
  const code = randomToken(12);
  await insertShortLink(db, { code, token, brandId, createdAt: new Date(ctx.clock.now()), expiresAt: new Date(expiresAt) });
  return { token, code, checkoutUrl: `${ctx.config.publicBaseUrl}/c/${code}`, expiresAt };
}
