import { Ajv } from "ajv";
import addFormatsImport from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { validationError } from "../lib/errors.js";
import { inputFault } from "../lib/input-shape.js";

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean | "array", removeAdditional: true | "all"): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated strictly (a payment API must not turn "100" into 100); query strings and
 * path parameters are text on the wire, so they are coerced to the schema's types. A body member
 * the schema does not name is dropped at any depth (never signed into a token or stored); headers
 * keep theirs, since their schemas name only the headers a route reads.
 */
export function registerValidation(app: FastifyInstance): void {
  // JSON bodies only (docs/decisions.md): without Fastify's built-in text parser, text/plain is 415.
  app.removeContentTypeParser("text/plain");

  // PostgreSQL text cannot hold a NUL character: refused here as bad input rather than failing in
  // the database. In a URL it can only come percent-encoded (before routing, so paths are covered).
  app.addHook("onRequest", async (request) => {
    if (request.url.includes("%00")) throw validationError("Invalid request: the URL contains a NUL character", "url");
  });
  // Every route, whatever parsed its body: text PostgreSQL cannot store (a NUL, a lone surrogate)
  // and nesting deeper than MAX_INPUT_DEPTH are refused before a handler or the schema sees them.
  // URLs need no walk: the request line is read as latin1 (no surrogates) and %00 is refused above.
  app.addHook("preValidation", (request, _reply, done) => {
    const fault = inputFault(request.body);
    if (fault) return done(validationError(`Invalid request: ${fault.path || "body"} ${fault.problem}`, fault.path || "body"));
    done();
  });
  const strict = makeAjv(false, "all");
  const coercing = makeAjv("array", true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? strict : coercing).compile(schema as object) as never);
}
