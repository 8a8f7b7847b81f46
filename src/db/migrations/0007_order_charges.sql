CREATE TABLE "order_charges" (
	"brand_id" text NOT NULL,
	"order_id" text NOT NULL,
	"provider" text NOT NULL,
	"state" text NOT NULL,
	"request_hash" text NOT NULL,
	"provider_key" text NOT NULL,
	"reply" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "order_charges_brand_id_order_id_pk" PRIMARY KEY("brand_id","order_id")
);
--> statement-breakpoint
CREATE INDEX "order_charges_reply_idx" ON "order_charges" USING btree ("paid_at") WHERE reply is not null;