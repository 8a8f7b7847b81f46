import type { FastifyReply, FastifyRequest } from "fastify";
import { providerTag, type PaymentProviderType } from "../../providers/manifest.js";

/**
 * Provider answers carry client secrets, payment method tokens or payment state: no cache may keep
 * them. Set before the handler, so error answers carry it too.
 */
export async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

/** Route options every provider endpoint shares: Idempotency-Key support (CONTRACT §17) and no-store. */
export const providerRouteOptions = { config: { idempotent: true }, onRequest: noStore } as const;

export const tagsOf = (provider: PaymentProviderType) => [providerTag(provider)];
