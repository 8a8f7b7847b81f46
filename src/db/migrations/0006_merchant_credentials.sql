CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"brand_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "brand_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"brand_id" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "merchant_checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"order_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"short_code" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"provider" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "paid_in_demo" boolean;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_brand_idx" ON "api_keys" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "brand_signing_keys_brand_idx" ON "brand_signing_keys" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "merchant_checkouts_brand_order_idx" ON "merchant_checkouts" USING btree ("brand_id","order_id");