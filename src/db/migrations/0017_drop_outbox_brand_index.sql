-- No query reads outbox_events by brand (the fan-out, the metrics and the receipts read by creation
-- time, the order timeline by checkout): the index only cost every event's insert and every fan-out
-- and receipt update an entry (docs/performance.md, complete).
DROP INDEX "outbox_events_brand_idx";
