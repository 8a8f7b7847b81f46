import type { Ctx } from "../ctx.js";
import { dailyApprovedVolume } from "../payments/approval-stats.js";
import { cardTaking, needsAddress } from "../payments/cascade/charge-at.js";
import { validationError } from "../lib/errors.js";
import { checkAddresses } from "./addresses.js";
import { payByCascade, type CascadePlan, type PayCheckout } from "../payments/cascade/pay.js";
import { providerNotAllowed } from "../payments/errors.js";
import { route, type CardFacts } from "../payments/routing/route.js";
import { PROVIDER_MANIFEST, type PaymentProviderType } from "../providers/manifest.js";
import { payOrder } from "./allowed-providers.js";
import { checkoutNotFound } from "./errors.js";
import { hasPaidBefore } from "./store.js";
import type { PayBody, PayResponse } from "./schemas.js";

/**
 * POST /api/checkout/pay (issue 34, docs/orchestration.md "Cascades"): the checkout page's one pay
 * call for card-taking providers. The checkout must be initialized; the providers are the token's
 * (that one alone: no routing, no cascade) or the route's over the brand's allowed card-taking
 * providers; payments/cascade charges them in order.
 */
export async function payCheckout({ ctx, input }: { ctx: Ctx; input: PayBody }): Promise<PayResponse> {
  const { orderId, cardNumber, cardExpMonth, cardExpYear, cardCvv, customer, billingAddress, shippingAddress, returnUrl } = input;
  checkAddresses(input);
  const reply = await payByCascade(
    ctx,
    { orderId, card: { cardNumber, cardExpMonth, cardExpYear, cardCvv }, customer, billingAddress, shippingAddress, returnUrl },
    { checkoutNotFound, plan: (checkout, card) => planPay(ctx, { orderId, email: customer.email, country: (billingAddress?.country || shippingAddress?.country) ?? null, hasAddress: Boolean(billingAddress ?? shippingAddress) }, checkout, card) },
  );
  return reply as PayResponse;
}

/**
 * The pay's route: a token (or API checkout) naming a provider keeps it alone. Else the brand's
 * allowed card-taking providers (CONTRACT §4; hosted_store takes no card here) usable in the order's
 * mode (test: demo or sandbox; live: live credentials only), less open circuits, through route()
 * with the brand's rules; the first `maxProviders`.
 */
async function planPay(ctx: Ctx, buyer: { orderId: string; email: string; country: string | null; hasAddress: boolean }, checkout: PayCheckout, card: CardFacts): Promise<CascadePlan> {
  const { orderId, country } = buyer;
  const livemode = checkout.livemode ?? ctx.config.paymentMode === "live";
  if (checkout.claimProvider) {
    if (!cardTaking(checkout.claimProvider)) throw providerNotAllowed();
    if (!buyer.hasAddress && needsAddress(checkout.claimProvider)) throw validationError("Invalid request: billingAddress is required for this payment provider", "billingAddress");
    return { providers: [checkout.claimProvider], ruleId: null, ruleName: "checkout", reason: "the checkout names its provider" };
  }
  const allowed = payOrder(undefined, checkout.enabledProviders).filter((provider) => PROVIDER_MANIFEST[provider].cardForm && cardTaking(provider) && (buyer.hasAddress || !needsAddress(provider)));
  const usable: PaymentProviderType[] = [];
  for (const provider of allowed) if (await usableFor(ctx, checkout, provider, livemode)) usable.push(provider);
  if (usable.length === 0) throw providerNotAllowed();
  // Every circuit open: the providers are tried anyway (a refusal would lose the sale for certain).
  const available = await ctx.orchestration.available(checkout.brandId, livemode, usable);
  const candidates = available.length > 0 ? available : usable;
  // The brand's rules and cascade limit, read with the claim (payments/cascade/store.ts openCascade: no
  // round trip of their own); what only some rules need is read only when a rule needs it, so a brand
  // without rules pays no more round trips than a provider endpoint's pay.
  const { rules, maxProviders } = checkout.routing;
  const successRate = rules.some((rule) => rule.target.type === "best_of") ? await ctx.orchestration.successRates(checkout.brandId, livemode) : () => null;
  const volumes = rules.some((rule) => rule.caps?.length)
    ? await dailyApprovedVolume(ctx.db, checkout.brandId, livemode, checkout.currency, new Date(ctx.clock.now()))
    : new Map<string, number>();
  const returningBuyer = rules.some((rule) => rule.conditions.buyer) ? await hasPaidBefore(ctx.db, { brandId: checkout.brandId, livemode, email: buyer.email }) : false;
  const decision = route(
    {
      orderId,
      amountCents: checkout.amountCents,
      currency: checkout.currency,
      country: country ? country.toUpperCase() : null,
      card,
      productIds: (checkout.lineItems ?? []).map((item) => item.id),
      funnelId: checkout.funnelId,
      returningBuyer,
      candidates,
    },
    rules,
    { dailyVolume: (provider) => volumes.get(provider) ?? 0, successRate },
  );
  const providers = decision.providers.filter((provider) => candidates.includes(provider)).slice(0, maxProviders);
  return { providers, ruleId: decision.ruleId, ruleName: decision.ruleName, reason: decision.reason };
}

/** A provider this order can be charged at by card here: configured for the order's mode, demo for a generator checkout; the intent gateway only in demo (live, its SDK takes the card). */
async function usableFor(ctx: Ctx, checkout: PayCheckout, provider: PaymentProviderType, livemode: boolean): Promise<boolean> {
  if (livemode && !(await ctx.providers.hasLiveCredentials(provider, checkout.brandId))) return false;
  const { adapter } = await ctx.providers.payment(provider, checkout.brandId, livemode);
  if (checkout.demoOnly && !adapter.demo) return false;
  return provider !== "intent_gateway" || adapter.demo;
}

