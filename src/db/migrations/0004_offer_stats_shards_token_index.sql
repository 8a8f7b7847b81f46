DROP INDEX "demo_provider_records_pom_idx";--> statement-breakpoint
ALTER TABLE "upsell_offer_stats" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "upsell_offer_stats" DROP CONSTRAINT "upsell_offer_stats_brand_id_offer_id_currency_pk";--> statement-breakpoint
ALTER TABLE "upsell_offer_stats" ADD CONSTRAINT "upsell_offer_stats_brand_id_offer_id_currency_shard_pk" PRIMARY KEY("brand_id","offer_id","currency","shard");--> statement-breakpoint
CREATE INDEX "demo_provider_records_token_idx" ON "demo_provider_records" USING btree ("payment_method_token","provider");
