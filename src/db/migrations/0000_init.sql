CREATE TABLE "brands" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"style" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "provider_settings" (
	"brand_id" text NOT NULL,
	"provider" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"public_values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"sealed_secrets" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"order_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"claims" jsonb NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"provider" text,
	"provider_order_id" text,
	"customer" jsonb,
	"shipping_address" jsonb,
	"billing_address" jsonb,
	"status" text NOT NULL,
	"webhook_url" text,
	"success_url" text,
	"token_expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "order_line_items" (
	"id" text PRIMARY KEY NOT NULL,
	"order_ref" text NOT NULL,
	"item_id" text NOT NULL,
	"name" text,
	"quantity" integer NOT NULL,
	"unit_price_cents" bigint NOT NULL,
	"sku" text
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"kind" text NOT NULL,
	"checkout_id" text,
	"parent_order_id" text,
	"order_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_order_id" text,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"customer_email" text NOT NULL,
	"customer_name" text NOT NULL,
	"customer" jsonb,
	"billing_address" jsonb,
	"shipping_address" jsonb,
	"payment_method_token" text,
	"crm_provider" text,
	"crm_order_id" text,
	"crm_status" text,
	"crm_campaign_id" text,
	"aff_id" text,
	"sub_id" text,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "short_links" (
	"code" text PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"brand_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "commissions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"brand_id" text NOT NULL,
	"order_ref" text NOT NULL,
	"order_id" text NOT NULL,
	"salesperson_id" text NOT NULL,
	"salesperson_name" text,
	"salesperson_email" text,
	"team_id" text,
	"team_name" text,
	"source" text,
	"campaign_code" text,
	"order_amount_cents" bigint NOT NULL,
	"commission_amount_cents" bigint NOT NULL,
	"commission_rate" double precision NOT NULL,
	"commission_type" text NOT NULL,
	"status" text NOT NULL,
	"notes" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"webhook_url" text,
	"checkout_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"dispatched_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"status_code" integer,
	"response_body" text,
	"response_headers" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "audit_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text,
	"brand_id" text,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text,
	"success" boolean NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"details" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "demo_provider_records" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"kind" text NOT NULL,
	"order_id" text,
	"provider_order_id" text,
	"amount_cents" bigint,
	"currency" text,
	"status" text NOT NULL,
	"payment_method_token" text,
	"card_last4" text,
	"card_behaviour" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_declines" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text,
	"client_address" text,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "brands" ADD CONSTRAINT "brands_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_settings" ADD CONSTRAINT "provider_settings_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkouts" ADD CONSTRAINT "checkouts_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_line_items" ADD CONSTRAINT "order_line_items_order_ref_orders_id_fk" FOREIGN KEY ("order_ref") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_checkout_id_checkouts_id_fk" FOREIGN KEY ("checkout_id") REFERENCES "public"."checkouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "brands_org_slug_key" ON "brands" USING btree ("organization_id","slug");--> statement-breakpoint
CREATE INDEX "brands_org_idx" ON "brands" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_settings_brand_provider_key" ON "provider_settings" USING btree ("brand_id","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "checkouts_brand_order_key" ON "checkouts" USING btree ("brand_id","order_id");--> statement-breakpoint
CREATE INDEX "checkouts_order_idx" ON "checkouts" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_line_items_order_idx" ON "order_line_items" USING btree ("order_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_checkout_key" ON "orders" USING btree ("checkout_id");--> statement-breakpoint
CREATE INDEX "orders_brand_created_idx" ON "orders" USING btree ("brand_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_order_id_idx" ON "orders" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "orders_transaction_idx" ON "orders" USING btree ("provider","transaction_id");--> statement-breakpoint
CREATE INDEX "orders_parent_idx" ON "orders" USING btree ("parent_order_id");--> statement-breakpoint
CREATE INDEX "commissions_brand_created_idx" ON "commissions" USING btree ("brand_id","created_at");--> statement-breakpoint
CREATE INDEX "commissions_salesperson_idx" ON "commissions" USING btree ("salesperson_id");--> statement-breakpoint
CREATE INDEX "commissions_order_idx" ON "commissions" USING btree ("order_ref");--> statement-breakpoint
CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" USING btree ("created_at") WHERE dispatched_at is null;--> statement-breakpoint
CREATE INDEX "outbox_events_brand_idx" ON "outbox_events" USING btree ("brand_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_org_created_idx" ON "audit_logs" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_brand_created_idx" ON "audit_logs" USING btree ("brand_id","created_at");--> statement-breakpoint
CREATE INDEX "demo_provider_records_order_idx" ON "demo_provider_records" USING btree ("provider","order_id");--> statement-breakpoint
CREATE INDEX "demo_provider_records_pom_idx" ON "demo_provider_records" USING btree ("payment_method_token");--> statement-breakpoint
CREATE INDEX "payment_declines_order_idx" ON "payment_declines" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_declines_address_idx" ON "payment_declines" USING btree ("client_address","created_at");