import { OutgoingFailure, sendOutgoing } from "../lib/outgoing-http.js";

/** CONTRACT §14: a receiver has 15 s to answer. */
export const SEND_TIMEOUT_MS = 15_000;
// Bodies of receivers' answers are read (to reuse the connection) but never kept past this.
const MAX_ANSWER_BYTES = 64 * 1024;
/** What the attempt log keeps of a receiver's answer (issue 36): its first 2 KB, for the merchant to read. */
export const RESPONSE_BODY_KEPT = 2048;

/** The first `RESPONSE_BODY_KEPT` bytes of `text`, cut at a character boundary; null when empty. */
export function keptResponseBody(text: string): string | null {
  if (text === "") return null;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= RESPONSE_BODY_KEPT) return text;
  // A cut inside a multi-byte character decodes to U+FFFD at the end: drop it.
  return bytes.subarray(0, RESPONSE_BODY_KEPT).toString("utf8").replace(/\uFFFD$/, "") + "…";
}

export interface SendResult {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The receiver's Retry-After, in ms from now, when it sent one. */
  retryAfterMs: number | null;
  /** The start of the receiver's answer (keptResponseBody); null without one. */
  responseBody?: string | null;
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
  const fail = (error: string, statusCode: number | null = null, retryAfterMs: number | null = null, responseBody: string | null = null): SendResult => ({ success: false, statusCode, durationMs: elapsed(), error, retryAfterMs, responseBody });
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
    const responseBody = keptResponseBody(answer.text);
    if (status >= 200 && status < 300) return { success: true, statusCode: status, durationMs: elapsed(), error: null, retryAfterMs: null, responseBody };
    const retryAfter = parseRetryAfter(answer.headers["retry-after"] as string | undefined, input.now);
    return fail(status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`, status, retryAfter, responseBody);
  } catch (error) {
    if (error instanceof OutgoingFailure && error.reason === "aborted") return { ...fail(error.message), aborted: true };
    return fail(error instanceof Error ? error.message : String(error));
  }
}
