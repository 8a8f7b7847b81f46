-- Issue 33: a provider's sandbox credentials saved as the brand's TEST credentials. They get a table of
-- their own rather than a mode column in provider_settings with a (brand_id, provider, mode) unique key:
-- during a rolling upgrade the previous release still serves, upserts provider_settings ON CONFLICT
-- (brand_id, provider) (so that unique index must stay) and reads EVERY provider_settings row of a brand
-- as live credentials (a sandbox row there would be charged as live money by the old code, and one
-- per mode would not fit the old unique index anyway). A new table is invisible to the old code, and
-- provider_settings keeps meaning "live credentials" in both releases: nothing to backfill or contract.
CREATE TABLE "provider_test_settings" (
	"brand_id" text NOT NULL,
	"provider" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"public_values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"sealed_secrets" text,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "provider_test_settings_brand_id_provider_pk" PRIMARY KEY("brand_id","provider")
);
--> statement-breakpoint
ALTER TABLE "provider_test_settings" ADD CONSTRAINT "provider_test_settings_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;