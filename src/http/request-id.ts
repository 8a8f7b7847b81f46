import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

const CALLER_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** CONTRACT §18: the caller's X-Request-Id when it is a sane value, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && CALLER_ID.test(given) ? given : randomUUID();
}
