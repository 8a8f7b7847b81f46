import { bigint, timestamp } from "drizzle-orm/pg-core";

// Money is integer minor units (columns end in _cents); bigint so large totals never overflow.
export const cents = (name: string) => bigint(name, { mode: "number" });
// Timestamps are written from ctx.clock (not now()) so tests can move time.
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
