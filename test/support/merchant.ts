// Helpers for the merchant-credentials tests (not a test file itself).
import type { TestApp } from "./app.js";
import { call } from "./identity.js";

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/**
 * Creates an API key for the session's brand through the admin API; returns its id and secret. A test
 * key by default (issue 33): it acts on test orders only; real-money flows need `mode: "live"`.
 */
export async function createApiKey(t: TestApp, session: string, body: { name?: string; scopes?: string[]; mode?: "test" | "live" } = {}): Promise<{ id: string; secret: string }> {
  const res = await call(t, "POST", "/api/admin/api-keys", { session, body: { name: "server", ...body } });
  if (res.statusCode !== 200) throw new Error(`create api key failed ${res.statusCode} ${res.body}`);
  const created = res.json();
  return { id: created.apiKey.id as string, secret: created.secret as string };
}

/** A request with the key and no session cookie, as a merchant server sends it. */
export function withKey(t: TestApp, method: "GET" | "POST" | "DELETE", url: string, secret: string | null, body?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url,
    headers: { ...(secret === null ? {} : bearer(secret)), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}
