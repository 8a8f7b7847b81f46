CREATE TABLE "approval_daily_stats" (
	"brand_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"day" date NOT NULL,
	"currency" text NOT NULL,
	"dimension" text NOT NULL,
	"value" text NOT NULL,
	"shard" smallint NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"approved" bigint DEFAULT 0 NOT NULL,
	"declined" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"approved_amount" bigint DEFAULT 0 NOT NULL,
	"recovered" bigint DEFAULT 0 NOT NULL,
	"recovered_amount" bigint DEFAULT 0 NOT NULL,
	"refunded_amount" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "approval_daily_stats_brand_id_livemode_day_currency_dimension_value_shard_pk" PRIMARY KEY("brand_id","livemode","day","currency","dimension","value","shard")
);
--> statement-breakpoint
CREATE INDEX "approval_daily_stats_unfolded_idx" ON "approval_daily_stats" USING btree ("day") WHERE shard <> 0;