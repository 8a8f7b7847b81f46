import { Ajv } from "ajv";
import addFormatsImport from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { validationError } from "../lib/errors.js";

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean | "array"): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: true, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated strictly (a payment API must not turn "100" into 100); query strings and
 * path parameters are text on the wire, so they are coerced to the schema's types.
 */
export function registerValidation(app: FastifyInstance): void {
  // JSON bodies only (docs/decisions.md): without Fastify's built-in text parser, text/plain is 415.
  app.removeContentTypeParser("text/plain");

  // PostgreSQL text cannot hold a NUL character: refused here as bad input rather than failing in
  // the database. In a URL it can only come percent-encoded; in JSON only as the \u0000 escape.
  app.addHook("onRequest", async (request) => {
    if (request.url.includes("%00")) throw validationError("Invalid request: the URL contains a NUL character", "url");
  });
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if ((body as string).includes("\\u0000")) return done(validationError("Invalid request: the body contains a NUL character", "body"), undefined);
    parseJson(request, body as string, done);
  });
  const strict = makeAjv(false);
  const coercing = makeAjv("array");
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? strict : coercing).compile(schema as object) as never);
}
