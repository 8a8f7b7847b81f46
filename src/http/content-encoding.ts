import { Transform, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { AppError } from "../lib/errors.js";

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** Fastify's own error codes, so the error handler answers as for a plain body (413, 400). */
const tooLarge = () => Object.assign(new Error("Request body too large"), { code: "FST_ERR_CTP_BODY_TOO_LARGE", statusCode: 413 });
const undecodable = (encoding: string) => new AppError("BAD_REQUEST", `Request body could not be decoded as Content-Encoding: ${encoding}`, "content-encoding");

/**
 * The body as the decoder reads it, cut off with a 413 once it decodes to more than `limit` bytes
 * (a zip bomb costs at most `limit` of memory and stops being inflated). `receivedEncodedLength` is
 * what Fastify checks Content-Length against.
 */
function decodedBody(raw: Readable, encoding: string, limit: number): Readable {
  const decoder = DECODERS[encoding]!();
  let decoded = 0;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      decoded += chunk.length;
      next(decoded > limit ? tooLarge() : null, chunk);
    },
  }) as Transform & { receivedEncodedLength: number };
  body.receivedEncodedLength = 0;
  // Fastify listens while it reads; an error after that (or with no reader) must not be uncaught.
  body.on("error", () => {});
  raw.on("data", (chunk: Buffer) => (body.receivedEncodedLength += chunk.length));
  decoder.on("error", () => body.destroy(undecodable(encoding)));
  body.on("close", () => {
    // Stop inflating, and let the rest of the upload drain so the answer can be sent.
    raw.unpipe(decoder);
    decoder.destroy();
    raw.resume();
  });
  raw.pipe(decoder).pipe(body);
  return body;
}

/**
 * `Content-Encoding` of a request body: gzip, deflate and br are decoded, with the body limit applied
 * to the decoded size; any other coding (or several) is 415. A body is never parsed with its
 * coding left on (docs/decisions.md).
 */
export function registerContentEncoding(app: FastifyInstance, limit: number): void {
  app.addHook("preParsing", (request, _reply, payload, done) => {
    const header = request.headers["content-encoding"];
    const hasBody = request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    if (header === undefined || !hasBody) return done(null, payload);
    const encoding = header.trim().toLowerCase();
    if (encoding === "" || encoding === "identity") return done(null, payload);
    if (!Object.hasOwn(DECODERS, encoding)) {
      return done(new AppError("UNSUPPORTED_MEDIA_TYPE", `Unsupported Content-Encoding: ${encoding.slice(0, 40)}; send gzip, deflate, br or none`, "content-encoding"), undefined);
    }
    done(null, decodedBody(payload, encoding, limit));
  });
}
