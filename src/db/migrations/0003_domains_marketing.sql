CREATE TABLE "custom_domains" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"domain" text NOT NULL,
	"is_root" boolean NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"primary" boolean DEFAULT false NOT NULL,
	"challenges" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"verified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "list_mappings" (
	"brand_id" text NOT NULL,
	"source" text NOT NULL,
	"list_id" text NOT NULL,
	"display_name" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "custom_domains" ADD CONSTRAINT "custom_domains_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_mappings" ADD CONSTRAINT "list_mappings_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "custom_domains_domain_key" ON "custom_domains" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "custom_domains_brand_idx" ON "custom_domains" USING btree ("brand_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_domains_one_primary_key" ON "custom_domains" USING btree ("brand_id") WHERE "custom_domains"."primary";--> statement-breakpoint
CREATE UNIQUE INDEX "list_mappings_brand_source_list_key" ON "list_mappings" USING btree ("brand_id","source","list_id");