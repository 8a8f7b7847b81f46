import { Type, type Static } from "typebox";
import { API_KEY_SCOPES } from "../db/schema/index.js";

// Issue 15: the administration API of merchant credentials. Secrets appear only in the create answers.

export const ApiKeyScope = Type.Union([Type.Literal("checkouts:write"), Type.Literal("orders:read"), Type.Literal("orders:refund"), Type.Literal("upsell:write"), Type.Literal("events:read"), Type.Literal("webhooks:write")]);

/** Issue 33 (CONTRACT §39): a credential's mode; everything it makes carries it as `livemode`. */
export const KeyMode = Type.Union([Type.Literal("test"), Type.Literal("live")], { description: "test: demo adapters only, no real money; live: real adapters with the brand's credentials" });
export type KeyMode = Static<typeof KeyMode>;

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  mode: Type.Optional(Type.Union([Type.Literal("test"), Type.Literal("live")], { description: "default test; the secret is sk_test_… or sk_live_…" })),
  scopes: Type.Optional(Type.Array(ApiKeyScope, { minItems: 1, maxItems: API_KEY_SCOPES.length, uniqueItems: true, description: "default: all six" })),
});
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "the secret's first characters, to tell keys apart" }),
  scopes: Type.Array(ApiKeyScope),
  apiVersion: Type.String({ description: "the `/api/v1` version the key is pinned to (made with the current one): what a request without `Checkout-Version` gets" }),
  mode: KeyMode,
  livemode: Type.Boolean(),
  createdAt: Type.Number({ description: "Unix ms" }),
  lastUsedAt: Type.Union([Type.Number({ description: "Unix ms, refreshed at most once a minute" }), Type.Null()]),
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const CreateApiKeyReply = Type.Object({
  success: Type.Literal(true),
  apiKey: ApiKeyView,
  secret: Type.String({ description: "`sk_test_…` or `sk_live_…`: shown this once, stored only as a hash" }),
});
export type CreateApiKeyReply = Static<typeof CreateApiKeyReply>;

export const ApiKeysReply = Type.Object({ apiKeys: Type.Array(ApiKeyView) });
export type ApiKeysReply = Static<typeof ApiKeysReply>;

export const ApiKeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export type ApiKeyIdParams = Static<typeof ApiKeyIdParams>;

export const CreateSigningKeyBody = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal("test"), Type.Literal("live")], { description: "default test: the mode of every checkout its tokens make" })),
});
export type CreateSigningKeyBody = Static<typeof CreateSigningKeyBody>;

export const SigningKeyView = Type.Object({
  kid: Type.String(),
  mode: KeyMode,
  livemode: Type.Boolean(),
  createdAt: Type.Number({ description: "Unix ms" }),
  lastUsedAt: Type.Union([Type.Number({ description: "Unix ms" }), Type.Null()]),
});
export type SigningKeyView = Static<typeof SigningKeyView>;

export const CreateSigningKeyReply = Type.Object({
  success: Type.Literal(true),
  signingKey: Type.Object({ kid: Type.String(), mode: KeyMode, livemode: Type.Boolean(), createdAt: Type.Number({ description: "Unix ms" }) }),
  secret: Type.String({ description: "HS256 secret, base64url of 32 random bytes: shown this once" }),
});
export type CreateSigningKeyReply = Static<typeof CreateSigningKeyReply>;

export const SigningKeysReply = Type.Object({ signingKeys: Type.Array(SigningKeyView) });
export type SigningKeysReply = Static<typeof SigningKeysReply>;

export const SigningKeyParams = Type.Object({ kid: Type.String({ minLength: 1, maxLength: 100 }) });
export type SigningKeyParams = Static<typeof SigningKeyParams>;

export const RevokedReply = Type.Object({ success: Type.Literal(true) });
export type RevokedReply = Static<typeof RevokedReply>;
