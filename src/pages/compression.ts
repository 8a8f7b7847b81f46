import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { FastifyInstance } from "fastify";

/** Answers smaller than this are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;
const COMPRESSIBLE_TYPE = /^(application\/(json|problem\+json|javascript)|text\/)/;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
// Quality 5: most of brotli's gain at a fraction of its top level's time, per request.
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };

/** The encoding to answer in: brotli when accepted, else gzip, else none (`q=0` refuses one, `*` accepts any). */
export function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    if (name) q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  const accepts = (name: string) => (q.get(name) ?? q.get("*") ?? 0) > 0;
  if (accepts("br")) return "br";
  if (accepts("gzip")) return "gzip";
  return null;
}

/**
 * Issue 18: API answers (JSON) and other text of at least 1 KB are compressed when the client says
 * it accepts brotli or gzip, with `Vary: Accept-Encoding` on every answer the choice depended on.
 * Files (streams: the built assets, which are pre-compressed at build time) are left alone. Runs as
 * the last onSend hook registered before the routes, so idempotency replays store the plain body.
 */
export function registerResponseCompression(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader("content-encoding") || reply.statusCode === 204 || reply.statusCode === 304) return payload;
    const type = String(reply.getHeader("content-type") ?? "");
    if (!COMPRESSIBLE_TYPE.test(type)) return payload;
    const body = typeof payload === "string" ? Buffer.from(payload) : payload;
    if (body.length < COMPRESS_MIN_BYTES) return payload;
    reply.header("vary", varyWith(reply.getHeader("vary")));
    if (/\bno-transform\b/.test(String(reply.getHeader("cache-control") ?? ""))) return payload;
    const encoding = chooseEncoding(request.headers["accept-encoding"]);
    if (!encoding) return payload;
    const compressed = encoding === "br" ? await brotli(body, BROTLI_OPTIONS) : await gzipAsync(body);
    reply.header("content-encoding", encoding);
    reply.removeHeader("content-length");
    return compressed;
  });
}

function varyWith(current: unknown): string {
  const existing = Array.isArray(current) ? current.join(", ") : current ? String(current) : "";
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(existing)) return existing;
  return existing ? `${existing}, Accept-Encoding` : "Accept-Encoding";
}
