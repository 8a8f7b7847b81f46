CREATE TABLE "routing_rule_versions" (
	"brand_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"version" integer NOT NULL,
	"rules" jsonb NOT NULL,
	"cascade_max_providers" smallint DEFAULT 2 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "routing_rule_versions_brand_id_livemode_version_pk" PRIMARY KEY("brand_id","livemode","version")
);
--> statement-breakpoint
ALTER TABLE "routing_rule_versions" ADD CONSTRAINT "routing_rule_versions_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;