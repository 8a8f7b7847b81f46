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
