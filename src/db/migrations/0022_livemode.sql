ALTER TABLE "checkouts" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "commissions" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "upsell_sessions" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "brand_signing_keys" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_checkouts" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_links" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Backfill (issue 33, CONTRACT §39). `livemode` = real money. Orders: paid through a real adapter
-- (paid_in_demo false; null, before 0006, counts as test). Events: their payload's livemode (issue 21).
UPDATE "orders" SET "livemode" = true WHERE "paid_in_demo" = false;--> statement-breakpoint
UPDATE "outbox_events" SET "livemode" = true WHERE "payload"->>'livemode' = 'true';--> statement-breakpoint
UPDATE "webhook_deliveries" SET "livemode" = true WHERE ("body"::jsonb)->'data'->>'livemode' = 'true';--> statement-breakpoint
UPDATE "checkouts" c SET "livemode" = true WHERE EXISTS (SELECT 1 FROM "orders" o WHERE o."checkout_id" = c."id" AND o."livemode")
  OR EXISTS (SELECT 1 FROM "outbox_events" e WHERE e."checkout_id" = c."id" AND e."type" = 'checkout.created' AND e."livemode");--> statement-breakpoint
UPDATE "refunds" r SET "livemode" = true FROM "orders" o WHERE o."id" = r."order_ref" AND o."livemode";--> statement-breakpoint
UPDATE "disputes" d SET "livemode" = true FROM "orders" o WHERE o."id" = d."order_ref" AND o."livemode";--> statement-breakpoint
UPDATE "commissions" m SET "livemode" = true FROM "orders" o WHERE o."id" = m."order_ref" AND o."livemode";--> statement-breakpoint
UPDATE "upsell_sessions" s SET "livemode" = true FROM "orders" o WHERE o."id" = s."original_order_ref" AND o."livemode";--> statement-breakpoint
-- Keys, links and endpoints made before modes: live on a brand that has saved real credentials, else test.
UPDATE "api_keys" k SET "livemode" = true WHERE EXISTS (SELECT 1 FROM "provider_settings" p WHERE p."brand_id" = k."brand_id" AND p."enabled" AND p."sealed_secrets" IS NOT NULL);--> statement-breakpoint
UPDATE "brand_signing_keys" k SET "livemode" = true WHERE EXISTS (SELECT 1 FROM "provider_settings" p WHERE p."brand_id" = k."brand_id" AND p."enabled" AND p."sealed_secrets" IS NOT NULL);--> statement-breakpoint
UPDATE "payment_links" l SET "livemode" = true WHERE EXISTS (SELECT 1 FROM "provider_settings" p WHERE p."brand_id" = l."brand_id" AND p."enabled" AND p."sealed_secrets" IS NOT NULL);--> statement-breakpoint
UPDATE "webhook_endpoints" w SET "livemode" = true WHERE EXISTS (SELECT 1 FROM "provider_settings" p WHERE p."brand_id" = w."brand_id" AND p."enabled" AND p."sealed_secrets" IS NOT NULL);--> statement-breakpoint
UPDATE "merchant_checkouts" m SET "livemode" = k."livemode" FROM "api_keys" k WHERE k."id" = m."api_key_id";
