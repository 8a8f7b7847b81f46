CREATE TABLE "salespeople" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"brand_id" text,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"commission_rate" double precision,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "salesperson_login_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"ip_address" text,
	"success" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "salesperson_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"salesperson_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', action || ' ' || translate(action, '._', '  ') || ' ' || resource_type || ' ' || coalesce(resource_id, '') || ' ' || actor_type || ' ' || coalesce(actor_id, ''))) STORED;--> statement-breakpoint
ALTER TABLE "salespeople" ADD CONSTRAINT "salespeople_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "salesperson_sessions" ADD CONSTRAINT "salesperson_sessions_salesperson_id_salespeople_id_fk" FOREIGN KEY ("salesperson_id") REFERENCES "public"."salespeople"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "salespeople_org_email_key" ON "salespeople" USING btree ("organization_id","email");--> statement-breakpoint
CREATE INDEX "salespeople_email_idx" ON "salespeople" USING btree ("email");--> statement-breakpoint
CREATE INDEX "salesperson_login_attempts_email_idx" ON "salesperson_login_attempts" USING btree ("email","created_at");--> statement-breakpoint
CREATE INDEX "salesperson_sessions_sp_idx" ON "salesperson_sessions" USING btree ("salesperson_id");--> statement-breakpoint
CREATE INDEX "audit_logs_org_action_created_idx" ON "audit_logs" USING btree ("organization_id","action","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_org_resource_created_idx" ON "audit_logs" USING btree ("organization_id","resource_type","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_org_actor_created_idx" ON "audit_logs" USING btree ("organization_id","actor_type","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_search_idx" ON "audit_logs" USING gin ("search_vector");