import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";

/**
 * The scopes an API key may carry (issue 15, CONTRACT §34). `events:read` and `webhooks:write` came
 * with the events API (issue 33); migration 0025 gave them to every key that held all four earlier ones.
 */
export const API_KEY_SCOPES = ["checkouts:write", "orders:read", "orders:refund", "upsell:write", "events:read", "webhooks:write"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * A brand's server-to-server API keys (`Authorization: Bearer sk_…`). Only the SHA-256 of the
 * secret is stored; it is looked up on a unique index on every request, so a revocation is seen by
 * every instance at once (no cache).
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    brandId: text("brand_id").notNull(),
    name: text("name").notNull(),
    /** The first characters of the secret (`sk_AbCd1234`), so a person can tell keys apart. */
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    scopes: jsonb("scopes").$type<ApiKeyScope[]>().notNull(),
    createdBy: text("created_by"),
    createdAt: at("created_at").notNull(),
    /** Refreshed at most once a minute per key. */
    lastUsedAt: at("last_used_at"),
    revokedAt: at("revoked_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
    /**
     * The `/api/v1` version the key was pinned to when it was made (src/merchant-credentials/api-version.ts):
     * what a request without `Checkout-Version` gets. The default is the first version, for keys made before versions.
     */
    apiVersion: text("api_version").notNull().default("2026-11-28"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_key").on(t.keyHash), index("api_keys_brand_idx").on(t.brandId)],
);

/**
 * A brand's checkout-token signing keys: a token whose header names `kid` is verified with this
 * secret only, and only for this brand (CONTRACT §34). The secret is sealed with ENCRYPTION_KEY.
 */
export const brandSigningKeys = pgTable(
  "brand_signing_keys",
  {
    kid: text("kid").primaryKey(),
    organizationId: text("organization_id").notNull(),
    brandId: text("brand_id").notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    createdBy: text("created_by"),
    createdAt: at("created_at").notNull(),
    lastUsedAt: at("last_used_at"),
    retiredAt: at("retired_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [index("brand_signing_keys_brand_idx").on(t.brandId)],
);

/**
 * Checkouts created through `POST /api/v1/checkouts`: the link handed to the merchant. The payment
 * itself lives in `checkouts` (created when the buyer opens the page), joined by brand and orderId.
 */
export const merchantCheckouts = pgTable(
  "merchant_checkouts",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id").notNull(),
    orderId: text("order_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    /**
     * The checkout's id, answered as `id` and carried by its events (issue 33): the `checkouts` row
     * initialize makes takes it. Every link of one (brand, orderId) shares it; rows from before 0023 have their own id.
     * Nullable: a row the previous release writes during a rolling upgrade has none, and its own id
     * stands in (read as `coalesce(checkout_id, id)`, CHECKOUT_ID_OF in src/merchant-api/store.ts).
     */
    checkoutId: text("checkout_id"),
    shortCode: text("short_code").notNull(),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    provider: text("provider"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [index("merchant_checkouts_brand_order_idx").on(t.brandId, t.orderId), index("merchant_checkouts_brand_checkout_idx").on(t.brandId, t.checkoutId)],
);
