import pino, { type DestinationStream, type Logger } from "pino";

// Card data, passwords, secrets and tokens never reach a log line, at any depth we log.
const SENSITIVE = ["cardNumber", "cardCvv", "cardExpMonth", "cardExpYear", "password", "secretKey", "secret", "token", "clientSecret", "paymentMethodToken", "apiKey", "apiPassword", "securityKey", "accessToken"];
const REDACT = [
  ...SENSITIVE,
  ...SENSITIVE.map((k) => `*.${k}`),
  ...SENSITIVE.map((k) => `*.*.${k}`),
  "req.headers.cookie",
  "req.headers.authorization",
  'res.headers["set-cookie"]',
  "headers.cookie",
  "headers.authorization",
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, serializers: { err: logSafeError }, base: undefined }, destination ?? pino.destination({ sync: false }));
}

/**
 * `insert into order_charges`, `select from checkouts`, `rollback`: what a failed statement did, from
 * its SQL text, made of its first keyword and the first table it names (identifiers only, never a value).
 */
export function statementName(text: string): string {
  const sql = text.trim().toLowerCase();
  const verb = /^[a-z]+/.exec(sql)?.[0] ?? "statement";
  const table = /\b(?:into|update|from)\s+"?([a-z_][a-z0-9_]*)"?/.exec(sql)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/**
 * Values that a driver's or the database's text can carry: a statement's parameters (Drizzle's
 * "Failed query: … params: …"), a value the database quotes back (`invalid input syntax for type
 * uuid: "…"`), an e-mail address (a mail server's refusal), a checkout token (a JWT).
 */
export function scrubText(text: string): string {
  return text
    .replace(/\nparams:[\s\S]*/, "")
    .replace(/: "(?:[^"]|"")*"/g, ": [value]")
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]*/g, "[token]")
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "[e-mail]");
}

// What a logged error keeps besides its type, message and stack: codes and names, never a value.
// Left out on purpose: pg's `detail` ("Key (token)=(…) already exists"), `where`, `internalQuery`,
// and the `query`/`params` that Drizzle and PGlite attach.
const SAFE_ERROR_FIELDS = ["code", "severity", "constraint", "table", "column", "dataType", "routine", "errno", "syscall", "address", "port", "statement", "statusCode", "provider", "retryable"];

/** An error's own message, without what it quotes: a failed query says which statement, not with what. */
function safeMessage(error: Error): string {
  const { query, params } = error as { query?: unknown; params?: unknown };
  if (typeof query === "string" && params !== undefined && error.message.startsWith("Failed query")) return `Failed query: ${statementName(query)}`;
  return scrubText(error.message);
}

/**
 * The `err` serializer of every logger (issue 31: failed-query warnings printed every parameter,
 * checkout tokens and saved payment-method tokens among them). Keeps the type, the messages and stack
 * frames of the error and its causes, the statement (`statement`, or the name made from the failed
 * query's text) and the fields of SAFE_ERROR_FIELDS. A string (`err: error.message`) is scrubbed.
 */
export function logSafeError(error: unknown): unknown {
  if (typeof error === "string") return scrubText(error);
  if (!(error instanceof Error)) return error;
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e);
  const frames = (e: Error) => (e.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  const out: Record<string, unknown> = {
    type: error.constructor?.name ?? error.name,
    message: chain.map(safeMessage).join(": "),
    stack: chain.map((e, i) => [`${i > 0 ? "caused by: " : ""}${e.name}: ${safeMessage(e)}`, ...frames(e)].join("\n")).join("\n"),
  };
  for (const e of chain) {
    const fields = e as unknown as Record<string, unknown>;
    for (const field of SAFE_ERROR_FIELDS) if (out[field] === undefined && fields[field] !== undefined && typeof fields[field] !== "object") out[field] = fields[field];
    if (out.statement === undefined && typeof fields.query === "string") out.statement = statementName(fields.query);
  }
  return out;
}

/**
 * The one-line-per-request log (app.ts) on the same destination, without redaction: that line's fields
 * are ours (method, route pattern, status, time, client address), never a body or a header, and
 * redaction's wildcard paths were about a fifth of the request log's CPU (docs/performance.md).
 */
export function requestLineLogger(log: Logger): Logger {
  return pino({ level: log.level, base: undefined }, (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]);
}

