import { and, eq, gt, isNull, lt, ne, or, sql, type Table } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { isUniqueViolation } from "../db/errors.js";
import { hotStatement, rowsAsJson, runHot, insertRowsSql, selectColumns } from "../db/hot.js";
import { brands, checkouts, commissions, orderLineItems, orders, outboxEvents, providerSettings, shortLinks } from "../db/schema/index.js";
import type { EventPayloads } from "../outbox/events.js";

// The checkout feature's queries. Each takes a db handle (client or transaction). The hot reads of
// initialize and complete are prepared statements, one per handle, so PostgreSQL plans them once.

const preparedByDb = new WeakMap<Db, Map<string, unknown>>();

function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = preparedByDb.get(db);
  if (!statements) {
    statements = new Map();
    preparedByDb.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (!statement) {
    statement = build(db);
    statements.set(name, statement);
  }
  return statement;
}

export type CheckoutRow = typeof checkouts.$inferSelect;

// $3: the payment link a token was minted from (null for others); $4: the token is the public
// generator's (demoOnly), the only case that needs to know whether an API checkout holds the orderId.
const BRAND_FOR_CHECKOUT = hotStatement(
  "checkout_brand",
  `select b.id as "brandId", b.organization_id as "organizationId",
     (select json_agg(ps.provider) from provider_settings ps where ps.brand_id = b.id and ps.enabled) as "enabledProviders",
     c.id as "checkoutId", c.status as "checkoutStatus", c.livemode as "checkoutLivemode", coalesce((c.claims->>'demoOnly')::boolean, false) as "checkoutDemoOnly",
     case when $4::boolean then exists (select 1 from merchant_checkouts mc where mc.brand_id = b.id and mc.order_id = $2) else false end as "merchantCheckout",
     case when c.id is null then (select coalesce(mc.checkout_id, mc.id) from merchant_checkouts mc where mc.brand_id = b.id and mc.order_id = $2
                                  order by mc.created_at, mc.id limit 1) end as "apiCheckoutId",
     pl.disabled_at as "linkDisabledAt", pl.expires_at as "linkExpiresAt"
   from brands b
   join organizations o on o.id = b.organization_id
   left join checkouts c on c.brand_id = b.id and c.order_id = $2
   left join payment_links pl on pl.id = $3::text and pl.brand_id = b.id
   where b.id = $1 and b.deleted_at is null and o.deleted_at is null`,
);

/**
 * Initialize's one read: the live brand (not deleted, nor its organization), the payment providers it
 * has enabled (CONTRACT §4), the checkout it already holds for this orderId (its status, whether the
 * public generator made it) or else the id an API checkout for the orderId was answered with (issue 33:
 * the new checkout takes it); with `from.demoOnly`, whether an API checkout holds the orderId; with
 * `from.paymentLinkId`, that link of the brand (disabled or expiry; null when unknown).
 */
export async function findBrandForCheckout(db: Db, brandId: string, orderId: string, from: { paymentLinkId?: string; demoOnly?: boolean } = {}) {
  const [row] = await runHot<{
    brandId: string;
    organizationId: string;
    enabledProviders: string[] | null;
    checkoutId: string | null;
    checkoutStatus: CheckoutRow["status"] | null;
    checkoutLivemode: boolean | null;
    checkoutDemoOnly: boolean;
    merchantCheckout: boolean;
    apiCheckoutId: string | null;
    linkDisabledAt: Date | null;
    linkExpiresAt: Date | null;
  }>(db, BRAND_FOR_CHECKOUT, [brandId, orderId, from.paymentLinkId ?? null, from.demoOnly === true]);
  return row ?? null;
}

/**
 * Whether the brand holds a checkout for the orderId, of any origin: an initialized or completed one,
 * or an API checkout not opened yet (the public generator mints only new orderIds, issue 31).
 */
export async function orderIdInUse(db: Db, brandId: string, orderId: string): Promise<boolean> {
  const result = await db.execute(sql`
    select exists (select 1 from checkouts where brand_id = ${brandId} and order_id = ${orderId})
        or exists (select 1 from merchant_checkouts where brand_id = ${brandId} and order_id = ${orderId}) as "inUse"`);
  return (result as unknown as { rows: { inUse: boolean }[] }).rows[0]?.inUse === true;
}

const SAVE_INITIALIZED_CHECKOUT = hotStatement(
  "checkout_save_initialized",
  `with saved as (
     insert into checkouts (id, brand_id, order_id, token_hash, claims, amount_cents, currency, provider, provider_order_id,
                            customer, shipping_address, billing_address, status, webhook_url, success_url, token_expires_at, created_at, updated_at, livemode)
     values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, 'initialized', $13, $14, $15, $16, $16, $19)
     on conflict (brand_id, order_id) do update set
       token_hash = excluded.token_hash, claims = excluded.claims, amount_cents = excluded.amount_cents, currency = excluded.currency,
       provider = excluded.provider, provider_order_id = excluded.provider_order_id, customer = excluded.customer,
       shipping_address = excluded.shipping_address, billing_address = excluded.billing_address, webhook_url = excluded.webhook_url,
       success_url = excluded.success_url, token_expires_at = excluded.token_expires_at, updated_at = excluded.updated_at,
       livemode = excluded.livemode
     where checkouts.status <> 'completed'
     returning id, (xmax = 0) as created
   ), event as (
     insert into outbox_events (id, brand_id, type, payload, webhook_url, checkout_id, created_at, livemode)
     select $17, $2, 'checkout.created', $18::jsonb, $13, saved.id, $16, $19 from saved where saved.created
   )
   select id, created from saved`,
);

export interface InitializedCheckout {
  id: string;
  brandId: string;
  orderId: string;
  tokenHash: string;
  claims: Record<string, unknown>;
  amountCents: number;
  currency: string;
  provider: string;
  providerOrderId: string | null;
  customer: Record<string, unknown> | null;
  shippingAddress: Record<string, unknown> | null;
  billingAddress: Record<string, unknown> | null;
  webhookUrl: string | null;
  successUrl: string | null;
  /** Live (real money) or test (CONTRACT §39): the adapter that will charge it. */
  livemode: boolean;
  tokenExpiresAt: Date;
  now: Date;
}

/**
 * Creates the checkout for (brand, orderId), or updates it while it is not completed, and writes its
 * `checkout.created` outbox event only when it was created: one statement, so atomic without a
 * transaction (ARCHITECTURE "Transactions and the outbox"). No row back means it was completed
 * meanwhile. The event's payload is built by the caller; its checkoutId is `checkout.id`.
 */
export async function saveInitializedCheckout(
  db: Db,
  checkout: InitializedCheckout,
  event: { id: string; payload: EventPayloads["checkout.created"] },
): Promise<{ id: string; created: boolean } | null> {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const params = [
    checkout.id,
    checkout.brandId,
    checkout.orderId,
    checkout.tokenHash,
    json(checkout.claims),
    checkout.amountCents,
    checkout.currency,
    checkout.provider,
    checkout.providerOrderId,
    json(checkout.customer),
    json(checkout.shippingAddress),
    json(checkout.billingAddress),
    checkout.webhookUrl,
    checkout.successUrl,
    checkout.tokenExpiresAt,
    checkout.now,
    event.id,
    json(event.payload),
    checkout.livemode,
  ];
  const save = () => runHot<{ id: string; created: boolean }>(db, SAVE_INITIALIZED_CHECKOUT, params);
  let rows: { id: string; created: boolean }[];
  try {
    rows = await save();
  } catch (error) {
    // Two first initializes of an API checkout insert the same id at once (issue 33): ON CONFLICT
    // guards (brand, orderId) only, so the loser's primary key fails. The row exists now: once more updates it.
    if (!isUniqueViolation(error)) throw error;
    rows = await save();
  }
  return rows[0] ?? null;
}

/**
 * Complete's read, with `failOnCrmError` read as the given expression. Every other table is reached
 * through a subquery on its key, so the plan a connection keeps is index lookups whatever the tables
 * held when it was made: as a join, a plan made while orders was empty hashed a sequential scan of
 * orders into every later completion (docs/performance.md); an EXISTS may likewise be planned as a
 * hash of every live funnel, a scalar subquery with LIMIT not.
 */
const completionCandidatesSql = (failOnCrmError: string) =>
  `select ${selectColumns(checkouts, "c")},
     (select b.organization_id from brands b where b.id = c.brand_id) as "organizationId",
     o.transaction_id as "orderTransactionId", o.provider as "orderProvider", o.amount_cents as "orderAmountCents", o.result as "orderResult",
     ${failOnCrmError} as "failOnCrmError",
     coalesce((select true from funnels f where f.brand_id = c.brand_id and f.status = 'live' and f.deleted_at is null limit 1), false) as "brandHasLiveFunnel"
   from checkouts c
   left join lateral (select transaction_id, provider, amount_cents, result from orders where orders.checkout_id = c.id limit 1) o on true
   where c.order_id = $1`;

// Two statements, so that no plan depends on a parameter's value: with one, `ps.provider = $2` was
// null for most completions, PostgreSQL found each plan made for the values cheaper than the generic
// plan, and planned the read anew on every completion (0.2 of its 0.3 ms of CPU).
const COMPLETION_CANDIDATES = hotStatement("checkout_completion_candidates", completionCandidatesSql("null"));
const COMPLETION_CANDIDATES_WITH_CRM = hotStatement(
  "checkout_completion_candidates_crm",
  completionCandidatesSql(`(select ps.public_values->'failOnCrmError' from provider_settings ps where ps.brand_id = c.brand_id and ps.provider = $2)`),
);

export interface CompletionCandidate {
  checkout: CheckoutRow;
  organizationId: string;
  /** The order this checkout completed into, when it is completed. */
  order: { transactionId: string; provider: string; amountCents: number; result: Record<string, unknown> } | null;
  /** The `failOnCrmError` setting of the CRM in question (as stored: true, "true", …). */
  failOnCrmError: unknown;
  /** Whether the checkout's brand has a live funnel: a completion looks for one only then (src/upsell/funnel/enter.ts). */
  brandHasLiveFunnel: boolean;
}

/**
 * Complete's one read: every checkout for the orderId (several brands may share one, newest first), each with its
 * organization, its order when completed, the `failOnCrmError` setting of the CRM in question and
 * whether its brand has a live funnel.
 */
export async function findCompletionCandidates(db: Db, orderId: string, crmProvider: string | null): Promise<CompletionCandidate[]> {
  const rows = await runHot<
    CheckoutRow & {
      organizationId: string;
      orderTransactionId: string | null;
      orderProvider: string;
      orderAmountCents: number;
      orderResult: Record<string, unknown>;
      failOnCrmError: unknown;
      brandHasLiveFunnel: boolean;
    }
  >(db, crmProvider === null ? COMPLETION_CANDIDATES : COMPLETION_CANDIDATES_WITH_CRM, crmProvider === null ? [orderId] : [orderId, crmProvider]);
  // Newest first, sorted here: a Sort node costs its set-up on every run, for the one row there usually is.
  return rows
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
    .map(({ organizationId, orderTransactionId, orderProvider, orderAmountCents, orderResult, failOnCrmError, brandHasLiveFunnel, ...checkout }) => ({
      checkout,
      organizationId,
      order: orderTransactionId === null ? null : { transactionId: orderTransactionId, provider: orderProvider, amountCents: orderAmountCents, result: orderResult },
      failOnCrmError,
      brandHasLiveFunnel,
    }));
}

/**
 * The completion's statement, with the line items' and the commission's inserts only when it has
 * them: each insert in a statement costs its table and indexes opened and its plan node set up on
 * every run, rows or not. $1-$6 always; $7 the line items, then the commission.
 */
function saveCompletionSql({ items, commission }: { items: boolean; commission: boolean }): string {
  const optional: string[] = [];
  const insertAfterOrder = (table: Table, name: string) =>
    optional.push(`, ${name} as (
     ${insertRowsSql(table, `$${7 + optional.length}`)}
     where exists (select 1 from saved_order)
   )`);
  if (items) insertAfterOrder(orderLineItems, "saved_items");
  if (commission) insertAfterOrder(commissions, "saved_commission");
  return `with claimed as (
     update checkouts set status = 'completed', completed_at = $2, updated_at = $2, crm_claim = null, crm_claimed_at = null
     where id = $1 and status <> 'completed' and (crm_claim is not distinct from $3 or crm_claimed_at < $4) returning id
   ), saved_order as (
     ${insertRowsSql(orders, "$5")}
     where exists (select 1 from claimed) returning id
   ), saved_events as (
     ${insertRowsSql(outboxEvents, "$6")}
     where exists (select 1 from saved_order)
   )${optional.join("")}
   select id from saved_order`;
}

const SAVE_COMPLETION = {
  plain: hotStatement("checkout_save_completion", saveCompletionSql({ items: false, commission: false })),
  items: hotStatement("checkout_save_completion_items", saveCompletionSql({ items: true, commission: false })),
  commission: hotStatement("checkout_save_completion_commission", saveCompletionSql({ items: false, commission: true })),
  both: hotStatement("checkout_save_completion_items_commission", saveCompletionSql({ items: true, commission: true })),
};

export interface Completion {
  checkoutId: string;
  at: Date;
  order: typeof orders.$inferInsert;
  lineItems: (typeof orderLineItems.$inferInsert)[];
  commission: typeof commissions.$inferInsert | null;
  events: (typeof outboxEvents.$inferInsert)[];
}

/**
 * Marks the checkout completed and writes the order, its line items, the commission and the outbox
 * events: one statement, so all or nothing without a transaction. Only when the checkout was not
 * completed yet and no one else holds its CRM claim: `crmClaim` is the caller's own (null without
 * one), and a claim taken before `staleBefore` belongs to a request that died. The checkout's claim
 * is cleared with it. False means it was not written: another completion got there first (CONTRACT
 * §7), or is still recording in its CRM. Concurrent duplicates queue on the checkout's row lock; a
 * unique violation can still reach the caller.
 */
export async function saveCompletion(db: Db, completion: Completion, crmClaim: string | null, staleBefore: Date): Promise<boolean> {
  const items = completion.lineItems.length > 0;
  const commission = completion.commission !== null;
  const statement = items ? (commission ? SAVE_COMPLETION.both : SAVE_COMPLETION.items) : commission ? SAVE_COMPLETION.commission : SAVE_COMPLETION.plain;
  const rows = await runHot<{ id: string }>(db, statement, [
    completion.checkoutId,
    completion.at,
    crmClaim,
    staleBefore,
    rowsAsJson(orders, [completion.order]),
    rowsAsJson(outboxEvents, completion.events),
    ...(items ? [rowsAsJson(orderLineItems, completion.lineItems)] : []),
    ...(completion.commission ? [rowsAsJson(commissions, [completion.commission])] : []),
  ]);
  return rows.length === 1;
}

/**
 * Claims the recording of the checkout's order in its CRM for `holder` (src/checkout/record-in-crm.ts)
 * while no one else holds a claim taken since `staleBefore`; `openOnly`: only while the checkout is
 * not completed (a completion; the administration's retry records completed ones). One statement on
 * the checkout's row, so of concurrent claimants one wins and the others see its claim, or its
 * completion.
 */
export async function claimCheckoutCrm(db: Db, claim: { checkoutId: string; holder: string; at: Date; staleBefore: Date; openOnly: boolean }): Promise<boolean> {
  const rows = await db
    .update(checkouts)
    .set({ crmClaim: claim.holder, crmClaimedAt: claim.at })
    .where(
      and(
        eq(checkouts.id, claim.checkoutId),
        claim.openOnly ? ne(checkouts.status, "completed") : undefined,
        or(isNull(checkouts.crmClaim), lt(checkouts.crmClaimedAt, claim.staleBefore)),
      ),
    )
    .returning({ id: checkouts.id });
  return rows.length === 1;
}

/** Gives the claim up, when `holder` still holds it (a completion's write clears it itself). */
export async function releaseCheckoutCrm(db: Db, checkoutId: string, holder: string): Promise<void> {
  await db
    .update(checkouts)
    .set({ crmClaim: null, crmClaimedAt: null })
    .where(and(eq(checkouts.id, checkoutId), eq(checkouts.crmClaim, holder)));
}

/** The order a checkout completed into, for replays and conflicts (CONTRACT §7). */
export async function findOrderOfCheckout(db: Db, checkoutId: string) {
  const [row] = await db
    .select({ transactionId: orders.transactionId, provider: orders.provider, amountCents: orders.amountCents, result: orders.result })
    .from(orders)
    .where(eq(orders.checkoutId, checkoutId));
  return row ?? null;
}

export async function findPaymentMethodToken(db: Db, provider: string, transactionId: string) {
  const statement = prepared(db, "checkout_payment_token", (d) =>
    d
      .select({
        paymentMethodToken: orders.paymentMethodToken,
        provider: orders.provider,
        providerOrderId: orders.providerOrderId,
        brandId: orders.brandId,
        paidInDemo: orders.paidInDemo,
        livemode: orders.livemode,
      })
      .from(orders)
      .where(and(eq(orders.provider, sql.placeholder("provider")), eq(orders.transactionId, sql.placeholder("transactionId"))))
      .limit(1)
      .prepare("checkout_payment_token"),
  );
  const [row] = await statement.execute({ provider, transactionId });
  return row ?? null;
}

export async function insertShortLink(db: Db, link: typeof shortLinks.$inferInsert): Promise<void> {
  await db.insert(shortLinks).values(link);
}

/** A brand's short link as it was made, expired or not (what an Idempotency-Key's repeat answers). */
export async function findShortLinkOfBrand(db: Db, code: string, brandId: string): Promise<{ token: string; expiresAt: Date } | null> {
  const [row] = await db
    .select({ token: shortLinks.token, expiresAt: shortLinks.expiresAt })
    .from(shortLinks)
    .where(and(eq(shortLinks.code, code), eq(shortLinks.brandId, brandId)));
  return row ?? null;
}

/** The token behind a short link, while it has not expired. */
export async function findShortLinkToken(db: Db, code: string, now: Date): Promise<string | null> {
  const [row] = await db
    .select({ token: shortLinks.token })
    .from(shortLinks)
    .where(and(eq(shortLinks.code, code), gt(shortLinks.expiresAt, now)));
  return row?.token ?? null;
}

/**
 * Whether the e-mail has paid an order of the brand in this mode before: routing's "returning buyer"
 * (issue 34), read only when a rule asks. Uses the orders search index (brand, lower(e-mail)).
 */
export async function hasPaidBefore(db: Db, buyer: { brandId: string; livemode: boolean; email: string }): Promise<boolean> {
  const rows = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.brandId, buyer.brandId), eq(orders.livemode, buyer.livemode), sql`lower(${orders.customerEmail}) = ${buyer.email.toLowerCase()}`))
    .limit(1);
  return rows.length > 0;
}
