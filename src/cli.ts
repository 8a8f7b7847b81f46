#!/usr/bin/env node
// `checkout`: the merchant developer's command line (issue 33 item 6, docs/webhooks.md "Developing
// locally"). `checkout listen --forward-to <url>` follows the events API with a test key and forwards
// each event to a local URL, signed Standard Webhooks style with a local secret it prints;
// `checkout trigger <type>` makes a test event. It talks to the service over HTTP only (imports nothing
// of the service), so the service needs no private-address switch to reach a developer's machine.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";

const USAGE = `Usage:
  checkout listen --forward-to <url> [--events <type,…>] [--secret <whsec_…>]
  checkout trigger <event type>

Options (both commands):
  --api-key <sk_…>   a TEST API key with the scopes events:read and webhooks:write (or CHECKOUT_API_KEY)
  --url <url>        the service, e.g. https://pay.example.com (or CHECKOUT_URL; default http://localhost:3000)

listen forwards every event of the key's brand (test mode) made from now on to --forward-to, signed
with a local secret (printed at start; --secret or CHECKOUT_WEBHOOK_SECRET to keep one across runs),
and prints one line per event with the local answer's status. Stop it with Ctrl-C.`;

/** Long poll length: below the service's 30 s maximum and common proxies' idle timeouts. */
const WAIT_SECONDS = 25;
/** A local receiver has as long as the service gives a real endpoint (CONTRACT §14). */
const FORWARD_TIMEOUT_MS = 15_000;

interface Options {
  apiKey: string;
  baseUrl: string;
}

interface EventView {
  id: string;
  type: string;
  timestamp: string;
  created: number;
  livemode: boolean;
  data: Record<string, unknown>;
}

class CliError extends Error {}

function fail(message: string): never {
  throw new CliError(message);
}

function optionsOf(values: { "api-key"?: string; url?: string }): Options {
  const apiKey = values["api-key"] ?? process.env.CHECKOUT_API_KEY;
  if (!apiKey) fail("An API key is needed: --api-key sk_… or CHECKOUT_API_KEY (a test key, made in the back office under API keys).");
  // Live keys never: forwarding live events to a laptop is how real customer data leaks.
  if (apiKey.startsWith("sk_live_")) fail("This is a live key (sk_live_…): checkout listen and trigger take a test key (sk_test_…) only.");
  const baseUrl = (values.url ?? process.env.CHECKOUT_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  if (!/^https?:\/\//.test(baseUrl)) fail(`--url must be an http(s) URL, not ${baseUrl}`);
  return { apiKey, baseUrl };
}

/** A call of the service's /api/v1 with the key; an error answer ends the command with the service's message. */
async function api<T>(options: Options, method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const response = await fetch(`${options.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${options.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = parsed as { error?: string; code?: string } | undefined;
    const why = error?.error ? `${error.error}${error.code ? ` (${error.code})` : ""}` : text.slice(0, 200);
    const err = new CliError(`${method} ${path}: ${response.status} ${why}`);
    (err as CliError & { status?: number }).status = response.status;
    throw err;
  }
  return parsed as T;
}

const statusOf = (error: unknown) => (error as { status?: number }).status;

/** The local secret: given (whsec_…), or 24 random bytes in the Standard Webhooks form, as the service generates them. */
function localSecret(given: string | undefined): string {
  const secret = given ?? process.env.CHECKOUT_WEBHOOK_SECRET ?? `whsec_${randomBytes(24).toString("base64")}`;
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) fail("--secret must be a whsec_… secret (whsec_ and base64).");
  return secret;
}

/** One event to the local URL, with the body and headers the service sends a real endpoint. Resolves with what to print. */
async function forward(url: string, signer: Webhook, event: EventView): Promise<string> {
  const body = JSON.stringify({ id: event.id, type: event.type, timestamp: event.timestamp, data: event.data });
  const messageId = `msg_${randomBytes(16).toString("base64url")}`;
  const now = new Date();
  const headers = {
    "content-type": "application/json",
    "user-agent": "checkout-cli/1",
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signer.sign(messageId, now, body),
  };
  try {
    const answer = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await answer.arrayBuffer().catch(() => undefined);
    return `[${answer.status}]`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return `[failed: ${cause ?? (error instanceof Error ? error.message : String(error))}]`;
  }
}

async function listen(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { "forward-to": { type: "string" }, "api-key": { type: "string" }, url: { type: "string" }, events: { type: "string" }, secret: { type: "string" } },
    strict: true,
  });
  const options = optionsOf(values);
  const target = values["forward-to"] ?? fail("--forward-to <url> is needed, e.g. --forward-to http://localhost:4000/webhooks");
  if (!/^https?:\/\//.test(target)) fail(`--forward-to must be an http(s) URL, not ${target}`);
  const secret = localSecret(values.secret);
  const signer = new Webhook(secret);
  const types = values.events ? `&type=${encodeURIComponent(values.events)}` : "";

  const stop = new AbortController();
  const quit = () => stop.abort();
  process.once("SIGINT", quit);
  process.once("SIGTERM", quit);

  // Where to start: after the newest event that exists now (only events made from now on are forwarded).
  const first = await api<{ data: EventView[]; livemode: boolean }>(options, "GET", `/api/v1/events?limit=1${types}`);
  if (first.livemode) fail("This key is a live key: checkout listen takes a test key only.");
  let newest: string | undefined = first.data[0]?.id;
  console.log(`Ready. Forwarding test events of this key's brand from ${options.baseUrl} to ${target}`);
  console.log(`Webhook signing secret: ${secret}`);
  console.log("(verify with it as with an endpoint's secret; Ctrl-C to quit)");

  let backoffMs = 1000;
  while (!stop.signal.aborted) {
    let page: { data: EventView[]; hasMore: boolean };
    try {
      const cursor = newest ? `&endingBefore=${encodeURIComponent(newest)}` : "";
      page = await api(options, "GET", `/api/v1/events?limit=100&waitSeconds=${WAIT_SECONDS}${cursor}${types}`, undefined, stop.signal);
      backoffMs = 1000;
    } catch (error) {
      if (stop.signal.aborted) break;
      const status = statusOf(error);
      // A refused key or request will not get better by retrying.
      if (status !== undefined && status < 500 && status !== 429) throw error;
      console.error(`${error instanceof Error ? error.message : String(error)}; retrying in ${backoffMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 30_000);
      continue;
    }
    // Newest first on the wire; forwarded oldest first, as they happened.
    for (const event of [...page.data].reverse()) {
      const result = await forward(target, signer, event);
      console.log(`${event.timestamp}  --> ${event.type} [${event.id}]  <-- ${result}`);
      newest = event.id;
    }
  }
}

async function trigger(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { "api-key": { type: "string" }, url: { type: "string" } }, allowPositionals: true, strict: true });
  const options = optionsOf(values);
  const type = positionals[0] ?? fail("Name the event type: checkout trigger order.confirmed");
  const event = await api<EventView>(options, "POST", "/api/v1/events/trigger", { type });
  console.log(`Triggered ${event.type} [${event.id}]`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === "listen") return listen(rest);
  if (command === "trigger") return trigger(rest);
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return;
  }
  fail(`Unknown command ${command}\n\n${USAGE}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof CliError ? error.message : error);
    process.exit(1);
  },
);
