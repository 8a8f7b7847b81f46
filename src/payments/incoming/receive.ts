import { eq } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import type { Db } from "../../db/client.js";
import { checkouts, DEFAULT_BRAND_ID, incomingWebhookEvents } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { newId } from "../../lib/ids.js";
import { applyPaymentStatus, checkoutOfNotification } from "../notifications.js";
import { INCOMING_PROVIDERS, type PaymentProviderType } from "../../providers/manifest.js";
import { findProviderSettings, readableValuesOf } from "../../providers/settings-store.js";
import { DEMO_SIGNATURE_HEADER, DEMO_TIMESTAMP_HEADER, isDemoSignatureValid } from "./demo-scheme.js";
import { headerOf, parseNormalised, refused, type DisputeNotice, type Headers, type ProviderNotification } from "../../providers/webhook-scheme-kit.js";
import { PROVIDER_SCHEMES } from "../../providers/webhook-schemes.js";

/** SPEC "Salesperson portal and incoming provider webhooks": every provider of the manifest notifies us. */
export { INCOMING_PROVIDERS };
export type IncomingProvider = PaymentProviderType;

/** The brands of the charges dispute notices name by transaction id or provider order id (none: []). */
export type BrandsOfDisputes = (db: Db, provider: IncomingProvider, notices: DisputeNotice[]) => Promise<string[]>;

/**
 * What the disputes feature does with the dispute notices a verified notification carries, handed in
 * by app.ts: payments/ receives and verifies provider notifications, disputes finds and applies them.
 */
export interface DisputeNotices<Charge extends { id: string; livemode: boolean }> {
  brandsOf: BrandsOfDisputes;
  /** The charge of the brand a notice names, if any. */
  findCharge: (db: Db, brandId: string, provider: IncomingProvider, notice: DisputeNotice) => Promise<Charge | undefined>;
  /** Applies a notice to its charge, inside the notification's transaction. */
  record: (tx: Db, ctx: Ctx, charge: Charge, notice: DisputeNotice) => Promise<void>;
}

/** A notification older or newer than this (by its signed timestamp) is refused: replay defence. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

export interface RawNotification {
  provider: IncomingProvider;
  /** The exact request bytes: every signature covers them. */
  body: Buffer;
  headers: Headers;
  /** `?brand=<brandId>` in the notification URL: which brand's secret verifies it (else found from the order id). */
  brand?: string;
}

/** A brand's `webhookSecret` for the provider (sealed in its live settings, or its sandbox's with `livemode` false), or null. */
export async function webhookSecretOf(ctx: Pick<Ctx, "db" | "config" | "log">, brandId: string, provider: IncomingProvider, livemode = true): Promise<string | null> {
  const stored = await findProviderSettings(ctx.db, brandId, provider, livemode);
  if (!stored) return null;
  const { values, secretsReadable } = readableValuesOf(stored, ctx.config.encryptionKeyring);
  if (!secretsReadable) ctx.log.error({ provider, brandId }, "provider secrets cannot be decrypted (ENCRYPTION_KEY changed?); webhook secret treated as not configured");
  const secret = values.webhookSecret;
  return typeof secret === "string" && secret.length > 0 ? secret : null;
}

/**
 * Which brands a notification may belong to: the one the URL or payload names, else the brands of
 * the checkouts with its order id (normally one), else those of the charges its disputes name by
 * transaction id or provider order id, else the default brand.
 */
async function candidateBrands(db: Db, brandsOfDisputes: BrandsOfDisputes, provider: IncomingProvider, event: ProviderNotification, named: string | undefined): Promise<string[]> {
  if (named) return [named];
  if (event.orderId) {
    const rows = await db.selectDistinct({ brandId: checkouts.brandId }).from(checkouts).where(eq(checkouts.orderId, event.orderId)).limit(10);
    if (rows.length > 0) return rows.map((r) => r.brandId);
  }
  const disputed = await brandsOfDisputes(db, provider, event.disputes ?? []);
  return disputed.length > 0 ? disputed : [DEFAULT_BRAND_ID];
}

/**
 * The provider's own signature scheme (src/providers/webhook-schemes.ts picks it), verified with the
 * `webhookSecret` of the brand the notification belongs to: its live settings' secret, else its
 * sandbox's (test settings, issue 33); then the 5-minute window where the scheme signs a timestamp.
 * Returns the translated notification, the brand whose secret verified it, and `testOnly` when that
 * was the sandbox's secret: a sandbox speaks only of test objects, so it never changes a live one.
 */
export async function verifyWithProviderScheme(ctx: Ctx, notification: RawNotification, brandsOfDisputes: BrandsOfDisputes): Promise<{ event: ProviderNotification; brandId: string; testOnly: boolean }> {
  const scheme = PROVIDER_SCHEMES[notification.provider];
  const event = scheme.parse(notification.body.toString("utf8"), notification.headers);
  let secretFound = false;
  for (const brandId of await candidateBrands(ctx.db, brandsOfDisputes, notification.provider, event, notification.brand ?? event.brandId)) {
    for (const livemode of [true, false]) {
      const secret = await webhookSecretOf(ctx, brandId, notification.provider, livemode);
      if (!secret) continue;
      secretFound = true;
      const check = scheme.verify(notification.headers, notification.body, secret);
      if (!check.valid) continue;
      if (check.timestamp !== undefined && Math.abs(ctx.clock.now() - check.timestamp * 1000) > TIMESTAMP_TOLERANCE_MS) throw refused("Webhook timestamp outside the 5-minute tolerance");
      return { event, brandId, testOnly: !livemode };
    }
  }
  throw refused(secretFound ? "Invalid webhook signature" : `No webhook signing secret configured for ${notification.provider}`);
}

/** Verifies the demo scheme (signature by the current or a previous token secret, then the 5-minute timestamp window); throws 400s. */
export function verifyDemoNotification(ctx: Pick<Ctx, "clock" | "config">, notification: RawNotification): void {
  const timestamp = headerOf(notification.headers, DEMO_TIMESTAMP_HEADER);
  const signature = headerOf(notification.headers, DEMO_SIGNATURE_HEADER);
  if (!timestamp || !signature) throw refused("Missing webhook signature");
  if (!/^\d{1,12}$/.test(timestamp)) throw refused("Invalid webhook timestamp");
  const secrets = [ctx.config.checkoutTokenSecret, ...ctx.config.checkoutTokenSecretsPrevious];
  if (!secrets.some((secret) => isDemoSignatureValid(secret, timestamp, notification.body, signature))) throw refused("Invalid webhook signature");
  if (Math.abs(ctx.clock.now() - Number(timestamp) * 1000) > TIMESTAMP_TOLERANCE_MS) throw refused("Webhook timestamp outside the 5-minute tolerance");
}

/**
 * Which scheme applies: the provider's own when its signature header is present; otherwise, in
 * demo mode (PAYMENT_MODE=test), the demo scheme, but only for brands without a `webhookSecret`
 * for the provider. Live mode has no demo scheme.
 */
async function verified(ctx: Ctx, notification: RawNotification, brandsOfDisputes: BrandsOfDisputes): Promise<{ event: ProviderNotification; brandId: string | null; narrow: string | undefined; testOnly: boolean }> {
  const scheme = PROVIDER_SCHEMES[notification.provider];
  if (headerOf(notification.headers, scheme.signatureHeader) !== undefined) {
    const { event, brandId, testOnly } = await verifyWithProviderScheme(ctx, notification, brandsOfDisputes);
    return { event, brandId, narrow: brandId, testOnly };
  }
  if (ctx.config.paymentMode === "live") throw refused("Missing webhook signature");
  verifyDemoNotification(ctx, notification);
  const event = parseNormalised(notification.body.toString("utf8"));
  const narrow = notification.brand ?? event.brandId;
  for (const brandId of await candidateBrands(ctx.db, brandsOfDisputes, notification.provider, event, narrow)) {
    // This brand has the provider's secret: only the provider's own signature is accepted for it.
    if (await webhookSecretOf(ctx, brandId, notification.provider)) throw refused("Missing webhook signature");
  }
  return { event, brandId: null, narrow, testOnly: false };
}

/** The disputes of a verified notification with the charges they name in its brand; unmatched ones are left out. */
async function disputedCharges<Charge extends { id: string; livemode: boolean }>(
  tx: Db,
  disputes: DisputeNotices<Charge>,
  verified: { brandId: string | null; testOnly: boolean },
  provider: IncomingProvider,
  event: ProviderNotification,
) {
  if (!verified.brandId) return [];
  const found: { notice: DisputeNotice; charge: Charge }[] = [];
  for (const notice of event.disputes ?? []) {
    const charge = await disputes.findCharge(tx, verified.brandId, provider, notice);
    if (charge && !(verified.testOnly && charge.livemode)) found.push({ notice, charge });
  }
  // Charges are then locked in one order, so two notifications of the same charges never deadlock.
  return found.sort((a, b) => a.charge.id.localeCompare(b.charge.id));
}

/**
 * `POST /api/webhooks/<provider>`: verify, deduplicate by the provider's event id within the brand,
 * store, and apply the payment status (payments/notifications.ts) or the disputes (`disputes`, from app.ts).
 * A repeat of an event id the brand stored changes nothing. The brand is the one whose secret verified
 * the signature (the provider's scheme), else, for the demo scheme (signed by the operator's secret),
 * the brand of the checkout found, else none: the unique key (provider, event id, brand) then never
 * lets one brand's notification suppress another's (issue 31).
 */
export async function receiveNotification<Charge extends { id: string; livemode: boolean }>(
  ctx: Ctx,
  notification: RawNotification,
  disputes: DisputeNotices<Charge>,
): Promise<{ received: true; duplicate: boolean; outcome: string }> {
  const { event, brandId, narrow, testOnly } = await verified(ctx, notification, disputes.brandsOf);
  const now = new Date(ctx.clock.now());
  return withTransaction(ctx.db, async (tx) => {
    const checkout = await checkoutOfNotification(tx, event, narrow, testOnly);
    const disputed = await disputedCharges(tx, disputes, { brandId, testOnly }, notification.provider, event);
    const outcome = event.disputes ? (disputed.length > 0 ? "applied" : "unmatched") : !event.status ? "ignored" : checkout ? "applied" : "unmatched";
    const stored = await tx
      .insert(incomingWebhookEvents)
      .values({
        id: newId("iwe"),
        provider: notification.provider,
        providerEventId: event.id,
        type: event.type,
        brandId: brandId ?? checkout?.brandId ?? null,
        orderId: event.orderId,
        payload: event.payload,
        outcome,
        receivedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: incomingWebhookEvents.id });
    if (stored.length === 0) return { received: true as const, duplicate: true, outcome: "duplicate" };
    if (checkout && event.status) await applyPaymentStatus(tx, checkout, event.status, event.transactionId, now);
    // The provider acted, not a user: its consequences (commissions) are audited as the system's.
    for (const { notice, charge } of disputed) await disputes.record(tx, { ...ctx, actor: { type: "system" } }, charge, notice);
    return { received: true as const, duplicate: false, outcome };
  });
}
