CREATE TABLE "payment_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"order_id" text NOT NULL,
	"checkout_id" text,
	"provider" text NOT NULL,
	"cascade_index" integer NOT NULL,
	"rule_id" text,
	"rule_name" text NOT NULL,
	"route_reason" text NOT NULL,
	"result" text NOT NULL,
	"decline_code" text,
	"decline_class" text,
	"provider_code" text,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"card_brand" text,
	"card_bin" varchar(6),
	"bin_country" text,
	"transaction_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_charges" ADD COLUMN "plan" jsonb;--> statement-breakpoint
CREATE INDEX "payment_attempts_order_idx" ON "payment_attempts" USING btree ("brand_id","order_id");--> statement-breakpoint
CREATE INDEX "payment_attempts_brand_time_idx" ON "payment_attempts" USING btree ("brand_id","livemode","created_at");