CREATE TABLE "funnel_daily_stats" (
	"funnel_id" text NOT NULL,
	"day" text NOT NULL,
	"step_index" smallint NOT NULL,
	"variant_id" text NOT NULL,
	"currency" text NOT NULL,
	"shard" smallint NOT NULL,
	"sessions" bigint DEFAULT 0 NOT NULL,
	"sessions_with_accept" bigint DEFAULT 0 NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"accepts" bigint DEFAULT 0 NOT NULL,
	"declines" bigint DEFAULT 0 NOT NULL,
	"downsell_impressions" bigint DEFAULT 0 NOT NULL,
	"downsell_accepts" bigint DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	"refunded_cents" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "funnel_daily_stats_funnel_id_day_step_index_variant_id_currency_shard_pk" PRIMARY KEY("funnel_id","day","step_index","variant_id","currency","shard")
);
--> statement-breakpoint
CREATE TABLE "funnel_entries" (
	"original_order_ref" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"funnel_id" text NOT NULL,
	"funnel_version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "funnel_versions" (
	"funnel_id" text NOT NULL,
	"version" integer NOT NULL,
	"trigger" jsonb NOT NULL,
	"steps" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "funnel_versions_funnel_id_version_pk" PRIMARY KEY("funnel_id","version")
);
--> statement-breakpoint
CREATE TABLE "funnels" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"name" text NOT NULL,
	"priority" integer NOT NULL,
	"status" text NOT NULL,
	"current_version" integer NOT NULL,
	"min_sample_per_variant" integer NOT NULL,
	"commission_rate" double precision,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "funnel_entries" ADD CONSTRAINT "funnel_entries_funnel_id_funnels_id_fk" FOREIGN KEY ("funnel_id") REFERENCES "public"."funnels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "funnel_versions" ADD CONSTRAINT "funnel_versions_funnel_id_funnels_id_fk" FOREIGN KEY ("funnel_id") REFERENCES "public"."funnels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "funnels" ADD CONSTRAINT "funnels_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "funnels_brand_status_idx" ON "funnels" USING btree ("brand_id","status");