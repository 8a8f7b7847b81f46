import { OutgoingFailure, sendOutgoing } from "../lib/outgoing-http.js";
import { ProviderError } from "./types.js";

/** CONTRACT: a provider call that answers nothing within 10 s is a failure. */
export const PROVIDER_TIMEOUT_MS = 10_000;
/** A provider's answer is read up to this size; a longer one is a failure. */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

export interface ProviderResponse {
  status: number;
  text: string;
}

/**
 * One HTTP call to a provider. Network failures and timeouts throw a retryable ProviderError; the
 * caller reads the status. Neither the request body (card data, keys) nor the URL's query is logged.
 * The connection goes through the URL guard (CONTRACT §36: `baseUrl` comes from the settings)
 * unless `allowPrivate` (ALLOW_PRIVATE_WEBHOOK_URLS, `ProviderCall.allowPrivateUrls`); redirects
 * are not followed (a 3xx is a status like any other) and the answer is capped.
 */
export async function providerFetch(provider: string, url: string, init: { method: "GET" | "POST"; headers?: Record<string, string>; body?: string; allowPrivate?: boolean }): Promise<ProviderResponse> {
  const host = new URL(url).host;
  let answer;
  try {
    answer = await sendOutgoing({ url, method: init.method, headers: init.headers, body: init.body, allowPrivate: init.allowPrivate ?? false, timeoutMs: PROVIDER_TIMEOUT_MS, maxAnswerBytes: MAX_PROVIDER_ANSWER_BYTES });
  } catch (error) {
    const reason = error instanceof OutgoingFailure ? error.reason : "unreachable";
    // Refused by the URL guard, or the connection never opened (refused, unknown host): the provider
    // saw nothing, so it certainly charged nothing (notCharged: a cascade may move on, issue 34).
    const neverSent = reason === "refused" || (reason === "unreachable" && /\b(ECONNREFUSED|ENOTFOUND)\b/.test((error as Error).message));
    throw new ProviderError(provider, `${host} ${reason}`, reason !== "refused", neverSent);
  }
  if (answer.truncated) throw new ProviderError(provider, `${host} answered more than ${MAX_PROVIDER_ANSWER_BYTES} bytes`, false);
  return { status: answer.status, text: answer.text };
}

/** Form encoding (`a=1&b[c]=2`) as the direct-post and PaymentIntents-style APIs take it. */
export function formEncode(values: Record<string, string | number | boolean | null | undefined>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null) form.append(key, String(value));
  return form.toString();
}

/** Cents to the decimal text of a two-decimal currency (1050 → "10.50"). */
export const decimalAmount = (cents: number) => (cents / 100).toFixed(2);
/** "10.50" → 1050; NaN when unreadable. */
export const centsOf = (decimal: string) => Math.round(Number.parseFloat(decimal) * 100);

/** baseUrl from the settings without a trailing slash, else the provider's public address. */
export function baseUrlOf(credentials: Record<string, unknown> | null, fallback: string): string {
  const value = typeof credentials?.baseUrl === "string" && credentials.baseUrl !== "" ? credentials.baseUrl : fallback;
  return value.replace(/\/+$/, "");
}

/** A credential the registry promised (configured = required keys present). */
export function credentialOf(provider: string, credentials: Record<string, unknown> | null, key: string): string {
  const value = credentials?.[key];
  if (typeof value !== "string" || value === "") throw new ProviderError(provider, `missing credential ${key}`, false);
  return value;
}
