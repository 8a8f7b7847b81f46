ALTER TABLE "upsell_offer_stats" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "funnel_daily_stats" ADD COLUMN "livemode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "orders_brand_mode_created_idx" ON "orders" USING btree ("brand_id","livemode","created_at");--> statement-breakpoint
-- Backfill (issue 33, CONTRACT §39). Live counter rows take the shards from the table's shard count up
-- (16 for offers, 8 for funnels: OFFER_STATS_SHARDS, FUNNEL_STATS_SHARDS), so the primary key the
-- previous release writes on stays as it is. Counters made before modes cannot be split exactly: a row
-- goes to the mode of most of the sessions it could have counted (the brand's sessions in its currency
-- for an offer's take rate, the funnel's sessions in its currency for a funnel's), test when there were
-- none. Exact whenever a brand (or funnel) ran in one mode, as every brand did until credentials were saved.
UPDATE "upsell_offer_stats" c SET "livemode" = true, "shard" = c."shard" + 16 WHERE c."shard" < 16 AND (
  SELECT count(*) FILTER (WHERE s."livemode") > count(*) FILTER (WHERE NOT s."livemode")
  FROM "upsell_sessions" s WHERE s."brand_id" = c."brand_id" AND s."currency" = c."currency");--> statement-breakpoint
UPDATE "funnel_daily_stats" c SET "livemode" = true, "shard" = c."shard" + 8 WHERE c."shard" < 8 AND (
  SELECT count(*) FILTER (WHERE s."livemode") > count(*) FILTER (WHERE NOT s."livemode")
  FROM "funnel_entries" f JOIN "upsell_sessions" s ON s."id" = f."session_id"
  WHERE f."funnel_id" = c."funnel_id" AND s."currency" = c."currency");
