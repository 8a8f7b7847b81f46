import { Ajv } from "ajv";
import addFormatsImport from "ajv-formats";
import type { FastifyInstance } from "fastify";

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
  const strict = makeAjv(false);
  const coercing = makeAjv("array");
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? strict : coercing).compile(schema as object) as never);
}
