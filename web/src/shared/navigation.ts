/**
 * CONTRACT §36: the pages navigate only to our own paths or to absolute http(s) URLs without
 * userinfo (the rule of src/lib/redirect-url.ts). Anything else (`javascript:`, `data:`, `//host`,
 * `https://shop@evil`) becomes `fallback`, so a bad URL in a token or a stored row can never run
 * script on this origin.
 */
export function safeNavigationTarget(value: string | null | undefined, fallback = "/success"): string {
  if (typeof value !== "string") return fallback;
  if (/^\/(?![/\\])[^\s\\]*$/.test(value)) return value;
  if (!/^https?:\/\/[^\s\\/?#@]+([/?#][^\s\\]*)?$/i.test(value)) return fallback;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "" ? url.toString() : fallback;
  } catch {
    return fallback;
  }
}
