import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { notFound } from "../../lib/errors.js";
import { Type } from "typebox";
import { INCOMING_PROVIDERS, receiveNotification, type IncomingProvider } from "./receive.js";

const KNOWN = new Set<string>(INCOMING_PROVIDERS);

/**
 * Provider notifications. Their own plugin scope: the JSON body is kept as the raw text the
 * signature covers, and parsed only after verification.
 */
export async function registerIncomingWebhookRoutes(app: App, deps: Deps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: 256 * 1024 }, (_request, body, done) => done(null, body));
    scope.post(
      "/api/webhooks/:provider",
      {
        schema: {
          tags: ["Incoming provider webhooks"],
          summary: "Provider notifications (demo scheme in docs/webhooks.md); answered 200 once verified and stored",
          params: Type.Object({ provider: Type.String() }),
          response: { 200: Type.Object({ received: Type.Literal(true), duplicate: Type.Boolean(), outcome: Type.String() }), ...errorResponses(400, 404, 413, 415) },
        },
      },
      async (request) => {
        const { provider } = request.params as { provider: string };
        if (!KNOWN.has(provider)) throw notFound("Unknown provider");
        const body = typeof request.body === "string" ? request.body : "";
        return receiveNotification(ctxOf(deps, request), { provider: provider as IncomingProvider, body, headers: request.headers });
      },
    );
  });
}
