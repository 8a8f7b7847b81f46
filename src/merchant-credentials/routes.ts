import type { FastifyReply, FastifyRequest } from "fastify";
import { callerCtx } from "../http/auth.js";
import type { Deps } from "../ctx.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createApiKey, listApiKeys, revokeApiKeyOfBrand } from "./api-keys.js";
import {
  ApiKeyIdParams,
  ApiKeysReply,
  CreateApiKeyBody,
  CreateApiKeyReply,
  CreateSigningKeyReply,
  RevokedReply,
  SigningKeyParams,
  SigningKeysReply,
} from "./schemas.js";
import { createSigningKey, listSigningKeys, retireSigningKeyOfBrand } from "./signing-keys.js";

const TAGS = ["Administration: merchant credentials"];

/** Answers carrying a secret must not be cached; set before the handler so errors carry it too. */
async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

// Issue 15: the session's brand's API keys and signing keys. Thin: the role check, one verb.
export function registerMerchantCredentialRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/api-keys",
    { schema: { tags: TAGS, summary: "The brand's API keys (any member); never a secret or a hash", response: { 200: ApiKeysReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listApiKeys({ ctx: callerCtx(deps, request) }),
  );

  app.post(
    "/api/admin/api-keys",
    {
      // CONTRACT §40: the key names one API key; its answer (the secret) is never stored, a repeat is 409 naming the key.
      config: { idempotent: true, showsSecret: true },
      onRequest: noStore,
      schema: {
        tags: TAGS,
        summary: "Create an API key (admin or owner); `secret` is shown in this answer only",
        body: CreateApiKeyBody,
        response: { 200: CreateApiKeyReply, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request) => createApiKey({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.delete(
    "/api/admin/api-keys/:id",
    {
      schema: { tags: TAGS, summary: "Revoke an API key at once, on every instance (admin or owner)", params: ApiKeyIdParams, response: { 200: RevokedReply, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => revokeApiKeyOfBrand({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.get(
    "/api/admin/signing-keys",
    { schema: { tags: TAGS, summary: "The brand's checkout-token signing keys (any member); never a secret", response: { 200: SigningKeysReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listSigningKeys({ ctx: callerCtx(deps, request) }),
  );

  app.post(
    "/api/admin/signing-keys",
    {
      config: { idempotent: true, showsSecret: true },
      onRequest: noStore,
      schema: {
        tags: TAGS,
        summary: "Create a brand signing key (admin or owner): tokens with its `kid` are valid for this brand only and make checkouts of its mode (body `{ mode?: \"test\" | \"live\" }`, default test); `secret` is shown once",
        response: { 200: CreateSigningKeyReply, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    // The body is optional (older clients post none), so it is read by the verb rather than a body schema.
    async (request) => createSigningKey({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.delete(
    "/api/admin/signing-keys/:kid",
    {
      schema: { tags: TAGS, summary: "Retire a signing key (admin or owner): tokens naming it are refused from now on", params: SigningKeyParams, response: { 200: RevokedReply, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request) => retireSigningKeyOfBrand({ ctx: callerCtx(deps, request), input: request.params }),
  );
}
