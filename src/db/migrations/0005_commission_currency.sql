-- Commissions carry their order's currency (issue 14). Existing rows take it from their order (the
-- order row of the completion that created them), else from the checkout of the same brand and
-- merchant order id; a row with neither keeps the "USD" the pages used to assume.
ALTER TABLE "commissions" ADD COLUMN "currency" text;--> statement-breakpoint
UPDATE "commissions" SET "currency" = "orders"."currency" FROM "orders" WHERE "orders"."id" = "commissions"."order_ref" AND "commissions"."currency" IS NULL;--> statement-breakpoint
UPDATE "commissions" SET "currency" = "checkouts"."currency" FROM "checkouts" WHERE "checkouts"."brand_id" = "commissions"."brand_id" AND "checkouts"."order_id" = "commissions"."order_id" AND "commissions"."currency" IS NULL;--> statement-breakpoint
UPDATE "commissions" SET "currency" = 'USD' WHERE "currency" IS NULL;--> statement-breakpoint
ALTER TABLE "commissions" ALTER COLUMN "currency" SET NOT NULL;
