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
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: undefined }, destination ?? pino.destination({ sync: false }));
}

/**
 * The one-line-per-request log (app.ts) on the same destination, without redaction: that line's fields
 * are ours (method, route pattern, status, time, client address), never a body or a header, and
 * redaction's wildcard paths were about a fifth of the request log's CPU (docs/performance.md).
 */
export function requestLineLogger(log: Logger): Logger {
  return pino({ level: log.level, base: undefined }, (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]);
}

