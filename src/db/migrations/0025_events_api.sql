ALTER TABLE "outbox_events" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "outbox_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "outbox_events_brand_mode_created_idx" ON "outbox_events" USING btree ("brand_id","livemode","created_at","seq");--> statement-breakpoint
-- Issue 33: the events API's scopes. A key that held every scope before (all four) keeps holding every
-- scope: it gains events:read and webhooks:write. A key made with fewer scopes keeps exactly those.
UPDATE "api_keys" SET "scopes" = "scopes" || '["events:read", "webhooks:write"]'::jsonb
WHERE "scopes" @> '["checkouts:write", "orders:read", "orders:refund", "upsell:write"]'::jsonb
  AND NOT "scopes" @> '["events:read"]'::jsonb;
