// The typed client of the merchant API (`/api/v1`, docs/merchant-api.md "Typed client"): openapi-fetch
// over the types openapi-typescript generated from the service's own OpenAPI document (schema.ts).
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** The client `createCheckoutClient` returns: `GET`, `POST`, … typed by path, body and answer. */
export type CheckoutClient = Client<paths>;

export interface CheckoutClientOptions {
  /** Where the service answers, e.g. `https://pay.example.com` (no `/api/v1`: the paths carry it). */
  baseUrl: string;
  /** A brand's API key, `sk_…` (administration, "API keys" page). Keep it on your server. */
  apiKey: string;
  /**
   * Sent as the `Checkout-Version` request header (a date, e.g. `2026-11-28`) when given. The
   * service does not read it yet (issue 33, item 4, pins the version to the key): set it now to keep it.
   */
  version?: string;
  /** A fetch of your own (tests, proxies, retries); default `globalThis.fetch`. */
  fetch?: ClientOptions["fetch"];
  /** More headers on every request. */
  headers?: Record<string, string>;
}

/**
 * A merchant API client with the key's bearer header on every request. Each call answers
 * `{ data, error, response }`: `data` typed by the operation's success answers, `error` by its error
 * answers (`{ error, code?, details? }`).
 */
export function createCheckoutClient(options: CheckoutClientOptions): CheckoutClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  return createClient<paths>({
    baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: {
      ...options.headers,
      authorization: `Bearer ${options.apiKey}`,
      ...(options.version ? { "checkout-version": options.version } : {}),
    },
  });
}
