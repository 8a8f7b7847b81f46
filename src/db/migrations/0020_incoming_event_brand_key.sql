-- Issue 31 item 11: incoming notifications are deduplicated per brand, (provider, event id, brand),
-- so one brand that knows another's provider event id cannot suppress it. A notification no brand
-- verified (demo scheme, no checkout) keeps a null brand, which coalesce makes one key ('').
-- contract: a unique index on a table the previous release writes, and safe under it: the key is wider than the one it replaces (rows stored so far, unique by (provider, event id), are unique by it), and both releases insert with ON CONFLICT DO NOTHING and no conflict target, so the previous release meets it as a duplicate, never as an error.
CREATE UNIQUE INDEX "incoming_webhook_events_brand_event_key" ON "incoming_webhook_events" USING btree ("provider","provider_event_id",coalesce("brand_id", ''));--> statement-breakpoint
-- contract: incoming_webhook_events_provider_event_key is replaced by the index above in this same migration; no code names it (its inserts give ON CONFLICT no target).
DROP INDEX "incoming_webhook_events_provider_event_key";
