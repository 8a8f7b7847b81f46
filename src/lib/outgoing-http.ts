import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import { guardedLookup, parseOutgoingUrl, refusalOfLiteralHost, UrlRefused } from "./url-guard.js";

/**
 * One outgoing HTTP call to a URL we did not choose ourselves (a webhook receiver, a provider's or
 * an integration's `baseUrl` from the settings), CONTRACT §14 and §36: every new connection's DNS
 * lookup goes through the URL guard (so a rebinding name cannot reach a private address after it
 * was checked at save), redirects are never followed (a 3xx is answered as it is), and at most
 * `maxAnswerBytes` of the answer are read.
 */
export interface OutgoingRequest {
  url: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  body?: string;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: no guard (tests reach their fakes on 127.0.0.1). */
  allowPrivate: boolean;
  timeoutMs: number;
  /** Reading stops past this many bytes and the answer says `truncated`. */
  maxAnswerBytes: number;
  /** Aborts the call (process shutdown). */
  signal?: AbortSignal;
}

export interface OutgoingAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The answer was longer than `maxAnswerBytes`: `text` holds only its start. */
  truncated: boolean;
}

/** The call got no answer: `refused` by the URL guard, `timed out`, `aborted`, or `unreachable`. */
export class OutgoingFailure extends Error {
  constructor(
    readonly reason: "refused" | "timed out" | "aborted" | "unreachable",
    message: string,
  ) {
    super(message);
    this.name = "OutgoingFailure";
  }
}

// Connections are kept open between calls (a receiver or provider usually gets many); each new
// socket's DNS lookup goes through the guard.
const agents = {
  guarded: { http: new http.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup }), https: new https.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup }) },
  open: { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) },
};

/** Sends one request; resolves with whatever status answered (3xx included), rejects with OutgoingFailure. */
export function sendOutgoing(input: OutgoingRequest): Promise<OutgoingAnswer> {
  let url: URL;
  try {
    url = parseOutgoingUrl(input.url);
  } catch (error) {
    return Promise.reject(new OutgoingFailure("refused", `URL refused: ${(error as Error).message}`));
  }
  if (!input.allowPrivate) {
    // Node calls no `lookup` for an IP-literal host: judge it here.
    const refusal = refusalOfLiteralHost(url);
    if (refusal) return Promise.reject(new OutgoingFailure("refused", `URL refused: ${refusal}`));
  }
  if (input.signal?.aborted) return Promise.reject(new OutgoingFailure("aborted", "aborted: the process is shutting down"));
  const secure = url.protocol === "https:";
  const agent = (input.allowPrivate ? agents.open : agents.guarded)[secure ? "https" : "http"];
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { answer: OutgoingAnswer } | { failure: OutgoingFailure }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      if ("answer" in outcome) resolve(outcome.answer);
      else reject(outcome.failure);
    };
    const headers: Record<string, string | number> = { ...input.headers };
    if (input.body !== undefined) headers["content-length"] = Buffer.byteLength(input.body);
    const request = (secure ? https : http).request(url, { method: input.method, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      let read = 0;
      let truncated = false;
      response.on("data", (chunk: Buffer) => {
        if (truncated) return;
        read += chunk.length;
        if (read > input.maxAnswerBytes) {
          truncated = true;
          chunks.push(chunk.subarray(0, chunk.length - (read - input.maxAnswerBytes)));
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      const answered = () => finish({ answer: { status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8"), truncated } });
      response.on("end", answered);
      response.on("close", answered);
      response.on("error", answered);
    });
    const timer = setTimeout(() => {
      finish({ failure: new OutgoingFailure("timed out", `timed out after ${input.timeoutMs} ms`) });
      request.destroy();
    }, input.timeoutMs);
    const onAbort = () => {
      finish({ failure: new OutgoingFailure("aborted", "aborted: the process is shutting down") });
      request.destroy();
    };
    input.signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      finish({ failure: error instanceof UrlRefused ? new OutgoingFailure("refused", `URL refused: ${error.message}`) : new OutgoingFailure("unreachable", error.message || String(error)) });
    });
    request.end(input.body);
  });
}
