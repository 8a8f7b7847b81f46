import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { notFound } from "../../lib/errors.js";
import { Type } from "typebox";
import { INCOMING_PROVIDERS, receiveNotification, type DisputeNotices, type IncomingProvider } from "./receive.js";

const KNOWN = new Set<string>(INCOMING_PROVIDERS);

/**
 * Provider notifications. Their own plugin scope: the JSON body is kept as the exact bytes the
 * signature covers (a Buffer, never re-encoded), and parsed by the provider's scheme.
 */
export async function registerIncomingWebhookRoutes<Charge extends { id: string; livemode: boolean }>(app: App, deps: Deps, { disputeNotices }: { disputeNotices: DisputeNotices<Charge> }): Promise<void> {
  await app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: 256 * 1024 }, (_request, body, done) => done(null, body));
    scope.post(
      "/api/webhooks/:provider",
      {
        schema: {
          tags: ["Incoming provider webhooks"],
          summary: "Provider notifications, signed with the provider's scheme and the brand's webhookSecret (or the demo scheme), see docs/webhooks.md; answered 200 once verified and stored",
          params: Type.Object({ provider: Type.String() }),
          querystring: Type.Object({ brand: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "the brand whose webhookSecret verifies the notification (else found from the order id)" })) }),
          response: { 200: Type.Object({ received: Type.Literal(true), duplicate: Type.Boolean(), outcome: Type.String() }), ...errorResponses(400, 404, 413, 415) },
        },
      },
      async (request) => {
        const { provider } = request.params as { provider: string };
        if (!KNOWN.has(provider)) throw notFound("Unknown provider");
        const { brand } = request.query as { brand?: string };
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        return receiveNotification(ctxOf(deps, request), { provider: provider as IncomingProvider, body, headers: request.headers, brand }, disputeNotices);
      },
    );
  });
}
