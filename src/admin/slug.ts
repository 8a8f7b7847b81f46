import { validationError } from "../lib/errors.js";

// Slugs of organizations and brands (docs/admin.md "Slugs").

export const SLUG_MAX = 48;
const URL_SAFE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** An explicit slug must already be URL-safe: lower-case letters, digits and single inner hyphens. */
export function checkExplicitSlug(slug: string): string {
  if (slug.length > SLUG_MAX || !URL_SAFE.test(slug)) {
    throw validationError("Slug must be 1 to 48 lower-case letters, digits or inner hyphens", "slug");
  }
  return slug;
}

/** A URL-safe slug from a display name; `fallback` when the name has no letters or digits. */
export function slugFromName(name: string, fallback: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_MAX - 4)
    .replace(/^-+|-+$/g, "");
  return slug || fallback;
}

/**
 * The first free slug of `base`, `base-2`, `base-3`, … given the slugs already taken that start
 * with `base`. The unique index still decides a race; the caller retries.
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

