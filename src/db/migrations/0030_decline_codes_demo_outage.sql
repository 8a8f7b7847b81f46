ALTER TABLE "provider_test_settings" ADD COLUMN "demo_outage" text;--> statement-breakpoint
ALTER TABLE "payment_declines" ADD COLUMN "decline_code" text;--> statement-breakpoint
ALTER TABLE "payment_declines" ADD COLUMN "decline_class" text;--> statement-breakpoint
ALTER TABLE "payment_declines" ADD COLUMN "provider_code" text;