ALTER TABLE "checkouts" ADD COLUMN "crm_claim" text;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "crm_claimed_at" timestamp with time zone;