/** The API's error body (CONTRACT §2): { error, code?, details? }. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly details?: string,
    readonly body?: unknown,
    /** Seconds to wait before trying again (429): the `Retry-After` header, else the body's `retryAfterSeconds`. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/**
 * One JSON call to our API (same origin; the session cookie goes along). Non-2xx throws ApiError.
 * `idempotencyKey` makes a repeat of the same call (a retry after a lost answer) replay the first answer.
 */
export async function api<T>(path: string, options: { method?: string; body?: unknown; idempotencyKey?: string } = {}): Promise<T> {
  const init: RequestInit = { method: options.method ?? (options.body === undefined ? "GET" : "POST"), credentials: "same-origin", headers: {} };
  if (options.idempotencyKey) (init.headers as Record<string, string>)["idempotency-key"] = options.idempotencyKey;
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "The service could not be reached. Check your connection and try again.");
  }
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const err = (body ?? {}) as { error?: string; code?: string; details?: string; retryAfterSeconds?: number };
    const header = Number(response.headers.get("retry-after") ?? NaN);
    const retryAfter = Number.isFinite(header) ? header : typeof err.retryAfterSeconds === "number" ? err.retryAfterSeconds : undefined;
    throw new ApiError(response.status, err.error ?? `Request failed (${response.status})`, err.code, err.details, body, retryAfter);
  }
  return body as T;
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
