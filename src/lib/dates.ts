import { Type } from "typebox";
import { validationError } from "../lib/errors.js";

// Date query parameters (issue 31 item 13): every route that takes one declares it with these schemas
// and reads it with these functions, so an instant a Date cannot hold (`9e15`, `1e400`) or a day that
// does not exist (`2026-12-32`, `2026-02-30`) is a 400 naming the parameter, never a 500.

/** The last millisecond of 9999-12-31 (UTC): the latest instant a date parameter may name. */
export const MAX_UNIX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** Days are four-digit years from 1970 on: the service holds nothing older. */
const FIRST_DAY_MS = 0;

/**
 * An instant in Unix milliseconds, 0 to MAX_UNIX_MS. The range is checked by the schema (a query
 * string is coerced to a number first, so `9e15` and `1e400` arrive as numbers and fail here).
 */
export const UnixMsParam = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_UNIX_MS, description: `${description}, Unix ms (0 to ${MAX_UNIX_MS})` });

/** A UTC day `YYYY-MM-DD`; the schema checks the shape, dayParam that the day exists. */
export const DayParam = (description: string) => Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: `${description}, a UTC day YYYY-MM-DD` });

/** A UnixMsParam as a Date; the range is checked again, so a verb called without the schema is safe too. */
export function dateParam(value: number | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > MAX_UNIX_MS) throw validationError(`Invalid request: ${name} must be Unix milliseconds from 0 to ${MAX_UNIX_MS}`, name);
  return new Date(value);
}

/** A DayParam as the Unix ms of its midnight (UTC): 400 naming the parameter unless the calendar has that day. */
export function dayParam(value: string, name: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const at = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Date.UTC rolls over (2026-02-30 is March 2nd): the day must read back as written.
  if (!match || !Number.isFinite(at) || at < FIRST_DAY_MS || at > MAX_UNIX_MS || new Date(at).toISOString().slice(0, 10) !== value) {
    throw validationError(`Invalid request: ${name} must be a calendar day YYYY-MM-DD from 1970-01-01 to 9999-12-31`, name);
  }
  return at;
}

/** The UTC day `YYYY-MM-DD` of Unix ms. */
export const dayOfMs = (at: number) => new Date(at).toISOString().slice(0, 10);
