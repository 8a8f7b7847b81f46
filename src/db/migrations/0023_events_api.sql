CREATE INDEX "outbox_events_brand_mode_created_idx" ON "outbox_events" USING btree ("brand_id","livemode","created_at","id");--> statement-breakpoint
-- Issue 33: the events API's scopes. A key that held every scope before (all four) keeps holding every
-- scope: it gains events:read and webhooks:write. A key made with fewer scopes keeps exactly those.
UPDATE "api_keys" SET "scopes" = "scopes" || '["events:read", "webhooks:write"]'::jsonb
WHERE "scopes" @> '["checkouts:write", "orders:read", "orders:refund", "upsell:write"]'::jsonb
  AND NOT "scopes" @> '["events:read"]'::jsonb;
