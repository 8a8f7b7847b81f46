import { OutgoingFailure, sendOutgoing } from "../lib/outgoing-http.js";

/** CONTRACT §14: a receiver has 15 s to answer. */
export const SEND_TIMEOUT_MS = 15_000;
// Bodies of receivers' answers are read (to reuse the connection) but never kept past this.
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendResult {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The receiver's Retry-After, in ms from now, when it sent one. */
  retryAfterMs: number | null;
  /** The send was cut short by `signal` (shutdown): not an attempt the receiver answered. */
  aborted?: boolean;
}

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Unix ms, for an HTTP-date Retry-After. */
  now: number;
  /** Aborts the send (process shutdown): the result then has `aborted: true`. */
  signal?: AbortSignal;
}

export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * One POST of a signed webhook. 2xx is success; anything else (3xx included: redirects are never
 * followed), a timeout or a refused address is a failure with its reason. Never throws.
 */
export async function sendWebhook(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (error: string, statusCode: number | null = null, retryAfterMs: number | null = null): SendResult => ({ success: false, statusCode, durationMs: elapsed(), error, retryAfterMs });
  try {
    const answer = await sendOutgoing({
      url: input.url,
      method: "POST",
      headers: { ...input.headers, "content-type": "application/json", "user-agent": "checkout-webhooks/1" },
      body: input.body,
      allowPrivate: input.allowPrivate,
      timeoutMs: input.timeoutMs ?? SEND_TIMEOUT_MS,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      signal: input.signal,
    });
    const status = answer.status;
    if (status >= 200 && status < 300) return { success: true, statusCode: status, durationMs: elapsed(), error: null, retryAfterMs: null };
    const retryAfter = parseRetryAfter(answer.headers["retry-after"] as string | undefined, input.now);
    return fail(status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`, status, retryAfter);
  } catch (error) {
    if (error instanceof OutgoingFailure && error.reason === "aborted") return { ...fail(error.message), aborted: true };
    return fail(error instanceof Error ? error.message : String(error));
  }
}
