ALTER TABLE "api_keys" ADD COLUMN "api_version" text DEFAULT '2026-11-28' NOT NULL;-- Keys made before versions existed are pinned to the first version (the column default above).
