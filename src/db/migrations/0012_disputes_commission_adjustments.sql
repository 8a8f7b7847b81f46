CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"order_ref" text NOT NULL,
	"order_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_dispute_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"status" text NOT NULL,
	"due_at" timestamp with time zone,
	"evidence" text,
	"evidence_submitted_at" timestamp with time zone,
	"evidence_sent" boolean,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "commission_adjustments" (
	"id" text PRIMARY KEY NOT NULL,
	"commission_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"brand_id" text NOT NULL,
	"salesperson_id" text NOT NULL,
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"refund_id" text,
	"dispute_id" text,
	"netted_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "orders_brand_after_sale_idx";--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "disputed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "commissions" ADD COLUMN "status_before_dispute" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_order_ref_orders_id_fk" FOREIGN KEY ("order_ref") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commission_adjustments" ADD CONSTRAINT "commission_adjustments_commission_id_commissions_id_fk" FOREIGN KEY ("commission_id") REFERENCES "public"."commissions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_provider_dispute_key" ON "disputes" USING btree ("brand_id","provider","provider_dispute_id");--> statement-breakpoint
CREATE INDEX "disputes_order_ref_idx" ON "disputes" USING btree ("order_ref");--> statement-breakpoint
CREATE INDEX "commission_adjustments_commission_idx" ON "commission_adjustments" USING btree ("commission_id");--> statement-breakpoint
CREATE INDEX "commission_adjustments_open_idx" ON "commission_adjustments" USING btree ("organization_id","salesperson_id","currency","created_at") WHERE kind = 'clawback' and netted_at is null;--> statement-breakpoint
CREATE INDEX "orders_brand_after_sale_idx" ON "orders" USING btree ("brand_id","created_at") WHERE (payment_status is not null or refunded_cents > 0 or disputed);