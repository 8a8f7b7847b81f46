import { useSyncExternalStore } from "react";

// Test and live never mix (CONTRACT §39, docs/admin.md "Test and live"): the back office shows one mode
// at a time. The choice is remembered per browser; until one is made, the brand's mode (what the
// first list answers in `livemode`) is shown and not remembered.

const KEY = "checkout.admin.livemode";
const listeners = new Set<() => void>();

function stored(): boolean | null {
  try {
    const value = localStorage.getItem(KEY);
    return value === "true" ? true : value === "false" ? false : null;
  } catch {
    return null;
  }
}

let chosen: boolean | null = stored();
let learned: boolean | null = null;

const emit = () => listeners.forEach((listener) => listener());

/** The switch: remembered in this browser. */
export function chooseMode(livemode: boolean): void {
  chosen = livemode;
  try {
    localStorage.setItem(KEY, String(livemode));
  } catch {
    // Private mode without storage: the choice lasts for this page only.
  }
  emit();
}

/** What an answer said it shows, while no choice was made: the brand's mode. */
export function learnMode(livemode: boolean): void {
  if (chosen !== null || learned === livemode) return;
  learned = livemode;
  emit();
}

/** Another brand (or organization) is selected: its own mode is learnt again, unless a choice was made. */
export function forgetLearnedMode(): void {
  if (learned === null) return;
  learned = null;
  emit();
}

/** The mode shown: the choice, else the brand's once an answer said it (null until then). */
export function useMode(): boolean | null {
  return useSyncExternalStore(
    (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    () => chosen ?? learned,
  );
}

// The reads that take `livemode` (lists, exports, stats); any other path is left as it is.
const MODE_AWARE = /^\/api\/(admin\/(orders(\/export\.csv)?|dashboard|analytics\/approvals|commissions|payment-links|webhooks|webhooks\/[^/?]+\/deliveries|funnels\/[^/?]+\/stats|routing)|salesperson\/auth)(\?|$)/;

/** `path` with the chosen mode as `livemode` when it is a mode-aware read and a choice was made. */
export function withMode(path: string, livemode: boolean | null = chosen): string {
  if (livemode === null || !MODE_AWARE.test(path)) return path;
  const url = new URL(path, "http://x");
  url.searchParams.set("livemode", String(livemode));
  return `${url.pathname}${url.search}`;
}
