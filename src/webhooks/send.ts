import http from "node:http";
import https from "node:https";
import { guardedLookup, parseWebhookUrl, refusalOfLiteralHost, UrlRefused } from "./url-guard.js";

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

// Connections are kept open between sends (a receiver usually gets many); each new socket's
// DNS lookup goes through the guard.
const agents = {
  guarded: { http: new http.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup }), https: new https.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup }) },
  open: { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) },
};

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
export function sendWebhook(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (error: string, statusCode: number | null = null, retryAfterMs: number | null = null): SendResult => ({ success: false, statusCode, durationMs: elapsed(), error, retryAfterMs });
  let url: URL;
  try {
    url = parseWebhookUrl(input.url);
  } catch (error) {
    return Promise.resolve(fail(`URL refused: ${(error as Error).message}`));
  }
  if (!input.allowPrivate) {
    const refusal = refusalOfLiteralHost(url);
    if (refusal) return Promise.resolve(fail(`URL refused: ${refusal}`));
  }
  const secure = url.protocol === "https:";
  const agent = (input.allowPrivate ? agents.open : agents.guarded)[secure ? "https" : "http"];
  const timeoutMs = input.timeoutMs ?? SEND_TIMEOUT_MS;
  const abortedResult = (): SendResult => ({ ...fail("aborted: the process is shutting down"), aborted: true });
  if (input.signal?.aborted) return Promise.resolve(abortedResult());
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => {
      done(abortedResult());
      request.destroy();
    };
    const request = (secure ? https : http).request(
      url,
      {
        method: "POST",
        agent,
        headers: { ...input.headers, "content-type": "application/json", "content-length": Buffer.byteLength(input.body), "user-agent": "checkout-webhooks/1" },
      },
      (response) => {
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const finish = () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) return done({ success: true, statusCode: status, durationMs: elapsed(), error: null, retryAfterMs: null });
          const retryAfter = parseRetryAfter(response.headers["retry-after"], input.now);
          done(fail(status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`, status, retryAfter));
        };
        response.on("end", finish);
        response.on("close", finish);
        response.on("error", finish);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    input.signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      const message = error instanceof UrlRefused ? `URL refused: ${error.message}` : error.message || String(error);
      done(fail(message));
    });
    request.end(input.body);
  });
}
