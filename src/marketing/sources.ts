import { AppError } from "../lib/errors.js";
import { OutgoingFailure, sendOutgoing } from "../lib/outgoing-http.js";

/** SPEC "Marketing list mappings": the three integrations, each a provider of the settings (category analytics). */
export const LIST_SOURCES = ["email_list_a", "email_list_b", "sms_segments"] as const;
export type ListSource = (typeof LIST_SOURCES)[number];

export interface ExternalList {
  id: string;
  name: string;
}

/**
 * The integration failed (non-2xx, unreadable JSON, nothing within the timeout, refused by the URL
 * guard, an answer over the cap): SPEC's 500 `Failed to fetch lists`. `host` and `status` say who
 * answered what, for the log (departure 5 of issue 16); the API key is never part of it.
 */
export class ListsFetchError extends AppError {
  constructor(
    readonly source: ListSource,
    reason: string,
    readonly host: string | null = null,
    readonly status: number | null = null,
  ) {
    super("LISTS_FETCH_FAILED", "Failed to fetch lists", `${source}: ${reason}`);
  }
}

export interface ListCall {
  apiKey: string;
  /** The `baseUrl` setting, else the integration's public address. */
  baseUrl?: string;
  timeoutMs: number;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: the URL guard is lifted. */
  allowPrivate: boolean;
}

/** At most this many pages are followed: a server that always answers `next` cannot keep us busy. */
const MAX_PAGES = 100;
/** One page of an integration's answer is read up to this size (docs/marketing.md). */
export const MAX_LIST_PAGE_BYTES = 2 * 1024 * 1024;

async function getJson(source: ListSource, url: string, headers: Record<string, string>, call: ListCall): Promise<unknown> {
  const host = new URL(url).host;
  let answer;
  try {
    answer = await sendOutgoing({ url, method: "GET", headers: { accept: "application/json", ...headers }, allowPrivate: call.allowPrivate, timeoutMs: call.timeoutMs, maxAnswerBytes: MAX_LIST_PAGE_BYTES });
  } catch (error) {
    throw new ListsFetchError(source, error instanceof OutgoingFailure ? error.reason : "unreachable", host);
  }
  // A redirect is not followed (CONTRACT §36): like any other non-2xx, a failure.
  if (answer.status < 200 || answer.status >= 300) throw new ListsFetchError(source, `answered ${answer.status}`, host, answer.status);
  if (answer.truncated) throw new ListsFetchError(source, `answer over ${MAX_LIST_PAGE_BYTES} bytes`, host, answer.status);
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new ListsFetchError(source, "unreadable JSON", host, answer.status);
  }
}

const listOf = (source: ListSource, item: unknown, name: unknown): ExternalList => {
  const id = (item as { id?: unknown } | null)?.id;
  if ((typeof id !== "string" && typeof id !== "number") || String(id) === "") throw new ListsFetchError(source, "a list without an id");
  return { id: String(id), name: typeof name === "string" ? name : String(id) };
};

const trimmed = (url: string) => url.replace(/\/+$/, "");

/** email_list_a: `GET /api/lists/` with the API-key header and revision, following `links.next` on the same origin. */
async function fetchEmailListA(call: ListCall): Promise<ExternalList[]> {
  const base = trimmed(call.baseUrl ?? "https://a.klaviyo.com");
  const origin = new URL(base).origin;
  const headers = { authorization: `Klaviyo-API-Key ${call.apiKey}`, revision: "2024-10-15" };
  const lists: ExternalList[] = [];
  let url: string | null = `${base}/api/lists/`;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const body = (await getJson("email_list_a", url, headers, call)) as { data?: unknown; links?: { next?: unknown } } | null;
    if (!Array.isArray(body?.data)) throw new ListsFetchError("email_list_a", "no data array");
    for (const item of body.data) lists.push(listOf("email_list_a", item, (item as { attributes?: { name?: unknown } })?.attributes?.name));
    const next = body.links?.next;
    // The API key goes only to the integration's own origin, whatever `next` says.
    url = typeof next === "string" && next !== "" && new URL(next, base).origin === origin ? new URL(next, base).toString() : null;
  }
  return lists;
}

/** email_list_b: `GET /3.0/lists?count=1000&offset=N` with basic auth, until `total_items` are read. Its data centre is the key's suffix (`…-us21`). */
async function fetchEmailListB(call: ListCall): Promise<ExternalList[]> {
  const dc = /-([a-z]+\d+)$/.exec(call.apiKey)?.[1] ?? "us1";
  const base = trimmed(call.baseUrl ?? `https://${dc}.api.mailchimp.com`);
  const headers = { authorization: `Basic ${Buffer.from(`anystring:${call.apiKey}`).toString("base64")}` };
  const lists: ExternalList[] = [];
  for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
    const body = (await getJson("email_list_b", `${base}/3.0/lists?count=1000&offset=${offset}`, headers, call)) as { lists?: unknown; total_items?: unknown } | null;
    if (!Array.isArray(body?.lists)) throw new ListsFetchError("email_list_b", "no lists array");
    for (const item of body.lists) lists.push(listOf("email_list_b", item, (item as { name?: unknown })?.name));
    offset += body.lists.length;
    const total = typeof body.total_items === "number" ? body.total_items : offset;
    if (body.lists.length === 0 || offset >= total) break;
  }
  return lists;
}

/** sms_segments: `GET /api/v2/segments` with a bearer key. */
async function fetchSmsSegments(call: ListCall): Promise<ExternalList[]> {
  const base = trimmed(call.baseUrl ?? "https://api.postscript.io");
  const body = (await getJson("sms_segments", `${base}/api/v2/segments`, { authorization: `Bearer ${call.apiKey}` }, call)) as { segments?: unknown } | null;
  if (!Array.isArray(body?.segments)) throw new ListsFetchError("sms_segments", "no segments array");
  return body.segments.map((item) => listOf("sms_segments", item, (item as { name?: unknown })?.name));
}

const FETCHERS: Record<ListSource, (call: ListCall) => Promise<ExternalList[]>> = {
  email_list_a: fetchEmailListA,
  email_list_b: fetchEmailListB,
  sms_segments: fetchSmsSegments,
};

/** Every list (or segment) of the integration, in its order. Throws ListsFetchError. */
export function fetchLists(source: ListSource, call: ListCall): Promise<ExternalList[]> {
  return FETCHERS[source](call);
}
