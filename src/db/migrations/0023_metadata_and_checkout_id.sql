ALTER TABLE "orders" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_checkouts" ADD COLUMN "checkout_id" text;--> statement-breakpoint
-- Hand-written (issue 33): an API checkout from before this migration keeps the id it was answered with.
UPDATE "merchant_checkouts" SET "checkout_id" = "id";--> statement-breakpoint
CREATE INDEX "merchant_checkouts_brand_checkout_idx" ON "merchant_checkouts" USING btree ("brand_id","checkout_id");--> statement-breakpoint
-- Orders completed before it take their checkout's metadata claim; upsell orders their original order's.
UPDATE "orders" o SET "metadata" = c."claims"->'metadata' FROM "checkouts" c
  WHERE o."kind" = 'checkout' AND o."checkout_id" = c."id" AND jsonb_typeof(c."claims"->'metadata') = 'object';--> statement-breakpoint
UPDATE "orders" u SET "metadata" = p."metadata" FROM "orders" p
  WHERE u."kind" = 'upsell' AND u."parent_order_id" = p."id" AND p."metadata" <> '{}'::jsonb;
