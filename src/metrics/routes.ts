import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../http/types.js";
import { ProviderError } from "../providers/types.js";
import type { Metrics, RouteSeries } from "./metrics.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set at route registration by registerRequestMetrics: the route's histogram series. */
    metricsSeries?: RouteSeries;
  }
}

/**
 * Times every request by route pattern (never the raw URL: paths carry checkout tokens). Each route
 * gets its series when it is registered (onRoute), so a request costs one lookup and one observe.
 * Must be registered before any route.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const unmatched = metrics.route("*", "(unmatched)");
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method.join(",") : route.method;
    const series = metrics.route(methods, route.url);
    const observe = async (_request: FastifyRequest, reply: FastifyReply) => {
      metrics.observe(series, reply.statusCode, reply.elapsedTime / 1000);
    };
    const existing = route.onResponse;
    route.onResponse = existing ? [...(Array.isArray(existing) ? existing : [existing]), observe] : [observe];
  });
  // A provider failure answered 502, by provider: a ProviderError, or a verb's error caused by one.
  app.addHook("onError", async (_request, _reply, error) => {
    for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
      if (e instanceof ProviderError) {
        metrics.providerError(e.provider);
        return;
      }
    }
  });
  // Requests that match no route go to the not-found handler, which has no onRoute.
  app.addHook("onResponse", async (request, reply) => {
    if (request.is404) metrics.observe(unmatched, reply.statusCode, reply.elapsedTime / 1000);
  });
}

/** GET /metrics in the Prometheus text format. Not rate-limited (CONTRACT §28, see http/rate-limit.ts). */
export function registerMetricsRoute(app: App, metrics: Metrics): void {
  app.get(
    "/metrics",
    {
      schema: {
        tags: ["Operations"],
        summary: "Prometheus metrics: requests by route, outbox, webhook deliveries, rate-limit Redis fallback, database pool (docs/operations.md)",
        produces: ["text/plain"],
        response: { 200: Type.String() },
      },
    },
    async (_request, reply) => {
      const text = await metrics.text();
      return reply.type(metrics.registry.contentType).send(text);
    },
  );
}
