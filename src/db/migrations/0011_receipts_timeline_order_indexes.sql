ALTER TABLE "brands" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "receipts_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "receipt_at" timestamp with time zone;--> statement-breakpoint
-- Orders paid before receipts existed get none: their events count as handled.
UPDATE "outbox_events" SET "receipt_at" = now() WHERE type in ('order.confirmed', 'upsell.accepted', 'refund.succeeded');--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "from_name" text;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "reply_to" text;--> statement-breakpoint
CREATE INDEX "orders_brand_after_sale_idx" ON "orders" USING btree ("brand_id","created_at") WHERE (payment_status is not null or refunded_cents > 0);--> statement-breakpoint
CREATE INDEX "outbox_events_receipt_idx" ON "outbox_events" USING btree ("created_at") WHERE receipt_at is null and type in ('order.confirmed', 'upsell.accepted', 'refund.succeeded');--> statement-breakpoint
CREATE INDEX "outbox_events_checkout_idx" ON "outbox_events" USING btree ("checkout_id");