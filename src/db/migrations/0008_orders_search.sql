CREATE INDEX "orders_brand_transaction_idx" ON "orders" USING btree ("brand_id","transaction_id");--> statement-breakpoint
CREATE INDEX "orders_brand_email_idx" ON "orders" USING btree ("brand_id",lower("customer_email") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "orders_brand_name_idx" ON "orders" USING btree ("brand_id",lower("customer_name") text_pattern_ops);