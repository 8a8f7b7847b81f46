CREATE TABLE "idempotency_effects" (
	"owner" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"resource_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_effects_owner_kind_key_pk" PRIMARY KEY("owner","kind","key")
);
