import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { hotStatement, rowsAsJson, runHot } from "../../db/hot.js";
import { checkouts, orderCharges, paymentAttempts } from "../../db/schema/index.js";
import { approvalStatsUpsertSql } from "../approval-stats.js";
import { currentRoutingSubquery, routingOf, type CurrentRouting } from "../routing/rules-store.js";
import type { DeclineCounts } from "../store.js";

/** The pay verb's route decision as the claim keeps it (order_charges.plan). */
export interface CascadePlan {
  providers: string[];
  ruleId: string | null;
  ruleName: string;
  reason: string;
}

/** What the pay verb reads of the order's checkout (the newest open one, else the completed one). */
export interface PayCheckout {
  brandId: string;
  checkoutId: string;
  webhookUrl: string | null;
  amountCents: number;
  currency: string;
  demoOnly: boolean;
  livemode: boolean | null;
  completed: boolean;
  metadata: Record<string, string> | null;
  /** The token's (or API checkout's) `provider` claim: that provider alone, no routing (CONTRACT §4). */
  claimProvider: string | null;
  funnelId: string | null;
  productName: string;
  lineItems: { id: string; name?: string; quantity: number; unitPrice: number }[] | null;
  /** Where the checkout was initialized, and the provider order made there. */
  provider: string | null;
  providerOrderId: string | null;
  /** The brand's enabled providers (as initialize reads them, CONTRACT §4). */
  enabledProviders: string[];
  /** The brand's current routing rules and cascade limit in the checkout's mode, read with the claim (planPay routes with them). */
  routing: CurrentRouting;
}

export interface OpenedCascade {
  /** Null: no checkout was initialized for the orderId (nothing claimed). */
  checkout: PayCheckout | null;
  /** The claim row was inserted by this statement: this request charges. */
  held: boolean;
  declineCounts: DeclineCounts;
}

// The pay verb's first round trip (issue 34: a pay without cascade sends no more statements than a
// provider endpoint): the order's checkout with what routing reads of it, the brand's enabled
// providers, the charge claim (only for an open checkout; its provider is the token's, else the
// checkout's, which the plan confirms or overwrites), the decline counts and the brand's current
// routing in the checkout's mode ($8: the service's mode, for a checkout that stored none).
const OPEN_CASCADE = hotStatement(
  "payment_open_cascade",
  `with context as (
     select brand_id, id, webhook_url, amount_cents, currency, coalesce((claims->>'demoOnly')::boolean, false) as demo_only, livemode, status = 'completed' as completed,
       claims->'metadata' as metadata, claims->>'provider' as claim_provider, claims->>'funnelId' as funnel_id, claims->>'productName' as product_name,
       claims->'lineItems' as line_items, provider, provider_order_id
     from checkouts where order_id = $1
     order by status = 'completed', created_at desc, id desc limit 1
   ), claim as (
     insert into order_charges (brand_id, order_id, provider, state, request_hash, provider_key, created_at)
     select brand_id, $1, coalesce(claim_provider, provider, $2), 'charging', $3, $4, $5 from context where not completed
     on conflict do nothing
     returning order_id
   )
   select c.brand_id as "brandId", c.id as "checkoutId", c.webhook_url as "webhookUrl", c.amount_cents as "amountCents", c.currency as "currency",
          c.demo_only as "demoOnly", c.livemode as "livemode", c.completed as "completed", c.metadata as "metadata",
          c.claim_provider as "claimProvider", c.funnel_id as "funnelId", c.product_name as "productName", c.line_items as "lineItems",
          c.provider as "provider", c.provider_order_id as "providerOrderId",
          (select coalesce(json_agg(ps.provider), '[]'::json) from provider_settings ps where ps.brand_id = c.brand_id and ps.enabled) as "enabledProviders",
          ${currentRoutingSubquery("c.brand_id", "coalesce(c.livemode, $8::boolean)")} as "routing",
          exists (select 1 from claim) as held,
          (select count(*) from payment_declines where order_id = $1 and created_at > $7)::int as "byOrder",
          (select count(distinct coalesce(card_fingerprint, id)) from payment_declines where client_address = $6 and created_at > $7)::int as "byAddress"
   from (select 1) as one left join context c on true`,
);

/** The order's checkout, the charge claim, the decline counts and the brand's routing in one round trip. */
export async function openCascade(
  db: Db,
  claim: { orderId: string; fallbackProvider: string; requestHash: string; providerKey: string; createdAt: Date },
  declines: { clientAddress: string | null; since: Date },
  serviceLivemode: boolean,
): Promise<OpenedCascade> {
  type Row = Omit<PayCheckout, "brandId" | "checkoutId" | "amountCents" | "routing"> & { brandId: string | null; checkoutId: string | null; amountCents: string | number | null; held: boolean; routing: Parameters<typeof routingOf>[0] } & DeclineCounts;
  const [row] = await runHot<Row>(db, OPEN_CASCADE, [
    claim.orderId,
    claim.fallbackProvider,
    claim.requestHash,
    claim.providerKey,
    claim.createdAt,
    declines.clientAddress,
    declines.since,
    serviceLivemode,
  ]);
  const { held, byOrder, byAddress, brandId, checkoutId, amountCents, routing, ...rest } = row!;
  const checkout = brandId && checkoutId ? { ...rest, brandId, checkoutId, amountCents: Number(amountCents), enabledProviders: rest.enabledProviders ?? [], routing: routingOf(routing) } : null;
  return { checkout, held, declineCounts: { byOrder, byAddress } };
}

/** Writes the plan on the held claim, before the first provider call (only when it is more than the claim's provider). */
export async function savePlan(db: Db, id: { brandId: string; orderId: string }, providerKey: string, plan: CascadePlan): Promise<void> {
  await db
    .update(orderCharges)
    .set({ provider: plan.providers[0]!, plan })
    .where(and(eq(orderCharges.brandId, id.brandId), eq(orderCharges.orderId, id.orderId), eq(orderCharges.providerKey, providerKey), eq(orderCharges.state, "charging")));
}

export type AttemptRow = typeof paymentAttempts.$inferInsert;

/** Records one provider attempt; false when it was recorded already (a takeover asked the provider again). */
export async function insertAttempt(tx: Db, attempt: AttemptRow): Promise<boolean> {
  const rows = await tx.insert(paymentAttempts).values(attempt).onConflictDoNothing().returning({ id: paymentAttempts.id });
  return rows.length === 1;
}

// The success of a pay (issue 34: no more statements than a provider endpoint's pay): the claim
// marked paid with its answer, the approving attempt recorded, the checkout pointed at the provider
// that charged (complete verifies there) and the approval counters added to (only with a newly
// recorded attempt: a takeover asking the provider again counts once), in ONE statement: atomic
// without BEGIN/COMMIT, so a crash leaves all of it or none.
const FINISH_PAID = hotStatement(
  "payment_cascade_paid",
  `with paid as (
     update order_charges set state = 'paid', reply = $4::jsonb, paid_at = $5
     where brand_id = $1 and order_id = $2 and provider_key = $3 and state = 'charging'
     returning order_id
   ), attempt as (
     insert into payment_attempts select * from jsonb_populate_recordset(null::payment_attempts, $6::jsonb)
     on conflict (id) do nothing
     returning id
   ), moved as (
     update checkouts set provider = $8, provider_order_id = $9, updated_at = $5
     where id = $7 and status <> 'completed' and exists (select 1 from paid)
     returning id
   ), stats as (
     ${approvalStatsUpsertSql("$10", "exists (select 1 from attempt)")}
     returning 1
   )
   select exists (select 1 from attempt) as recorded, exists (select 1 from moved) as moved, (select count(*) from stats)::int as counted`,
);

/**
 * The held claim marked paid, the approved attempt recorded (false: recorded already), the checkout
 * moved to the charging provider and, with a newly recorded attempt, its approval counters (rows of
 * approvalStatsJson) added: one statement, no transaction needed.
 */
export async function finishPaid(
  db: Db,
  claim: { brandId: string; orderId: string; providerKey: string },
  reply: Record<string, unknown>,
  paidAt: Date,
  attempt: AttemptRow,
  checkout: { id: string; provider: string; providerOrderId: string },
  statsJson: string,
): Promise<boolean> {
  const [row] = await runHot<{ recorded: boolean }>(db, FINISH_PAID, [
    claim.brandId,
    claim.orderId,
    claim.providerKey,
    JSON.stringify(reply),
    paidAt,
    rowsAsJson(paymentAttempts, [attempt]),
    checkout.id,
    checkout.provider,
    checkout.providerOrderId,
    statsJson,
  ]);
  return row!.recorded;
}

/** Points an open checkout at the provider that holds its payment (a 3-D Secure step there): the page returns to it, complete verifies there. */
export async function moveCheckout(tx: Db, checkoutId: string, provider: string, providerOrderId: string, at: Date): Promise<void> {
  await tx.update(checkouts).set({ provider, providerOrderId, updatedAt: at }).where(and(eq(checkouts.id, checkoutId), ne(checkouts.status, "completed")));
}
