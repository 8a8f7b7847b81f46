import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * Issue 16 hole 5: a response that sets or clears a cookie (register, login, 2FA verify, magic-link
 * verify, social callbacks, logout) is never stored by a browser or a shared cache, so no cache
 * can hand one user's session cookie to another.
 */
export function registerNoStoreForCookies(app: FastifyInstance): void {
  app.addHook("onSend", async (_request, reply, payload) => {
    if (reply.hasHeader("set-cookie")) reply.header("cache-control", "no-store");
    return payload;
  });
}

/** An onRequest hook for answers that carry customers' personal data (orders, disputes): no cache may keep them. */
export async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}
