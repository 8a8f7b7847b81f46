/** PostgreSQL's unique_violation (23505), possibly wrapped by the driver or Drizzle: a unique index decided a race. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.code === "23505") return true;
  return false;
}
