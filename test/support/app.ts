import { Writable } from "node:stream";
import type { FastifyReply, FastifyRequest, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/index.js";
import type { Deps } from "../../src/ctx.js";
import { createRuntime, type Runtime } from "../../src/deps.js";
import type { App } from "../../src/http/types.js";
import { ManualClock } from "../../src/lib/clock.js";
import { createLogger } from "../../src/lib/logger.js";
import { freshDatabaseUrl, pgliteSnapshot, testEngine } from "./database.js";

export const TEST_TOKEN_SECRET = "test-checkout-token-secret-0123456789abcdef";

export interface TestApp {
  app: App;
  deps: Deps;
  runtime: Runtime;
  clock: ManualClock;
  /** Every log line the app wrote, as text (for "no card number in the logs" checks). */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Builds the real app on a fresh database. Rate limits and admission thresholds are high unless a
 * test sets them, so only the rate-limit and admission tests meet them. `env` overrides any CONTRACT.md variable.
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    jobs?: "background" | "manual" | "off";
    /** Rewrites the test database's URL, e.g. to reach it through a proxy that injects network faults. */
    databaseVia?: (url: string) => string;
    /** Sees every answer as it is sent (the last onSend hook): the response-validation test records them. */
    observe?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;
  } = {},
): Promise<TestApp> {
  const database = await freshDatabaseUrl();
  const config = loadConfig({
    CHECKOUT_TOKEN_SECRET: TEST_TOKEN_SECRET,
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    RATE_LIMIT_ANONYMOUS: "100000",
    RATE_LIMIT_AUTHENTICATED: "100000",
    // Tests share a busy machine and a pool of 5: only the admission tests meet its refusals (the
    // in-flight ceiling off; the hard limits, a stalled pool's, stay).
    ADMISSION_QUEUE_TARGET_MS: "0",
    PUBLIC_BASE_URL: "http://checkout.test",
    LOG_LEVEL: "info",
    ...options.env,
    DATABASE_URL: options.databaseVia ? options.databaseVia(database.url) : database.url,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const log = createLogger(config.logLevel, sink);
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const runtime = await createRuntime(config, clock, log, { poolSize: 5, pgliteSnapshot: testEngine === "pglite" ? await pgliteSnapshot() : undefined });
  // Background jobs are driven by the tests (app.webhookWorker.deliverDue(), app.jobs.trigger() and the clock), not by timers.
  const app = await buildApp(runtime.deps, { rateLimitStore: runtime.rateLimitStore, jobs: options.jobs ?? "manual" });
  const { observe } = options;
  if (observe) {
    app.addHook("onSend", async (request, reply, payload) => {
      observe(request, reply, payload);
      return payload;
    });
  }
  await app.ready();
  return {
    app,
    deps: runtime.deps,
    runtime,
    clock,
    logs,
    close: async () => {
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
}

/** Parsed JSON body of an inject response. */
export function json<T = Record<string, any>>(response: LightMyRequestResponse): T {
  return response.json() as T;
}

/** An error body without its `requestId`, which is each answer's own: to compare two answers' errors. */
export function errorOf(response: LightMyRequestResponse): Record<string, any> {
  const { requestId: _requestId, ...rest } = json(response);
  return rest;
}
