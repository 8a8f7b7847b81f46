// Settings that are fine for trying the service and unsafe in production (issue 21 item 3). Each is
// one warning line at start; with NODE_ENV=production the process refuses to start unless
// ALLOW_UNSAFE names it (docs/configuration.md "Unsafe settings").
import type { PaymentMode, RegistrationMode } from "./modes.js";
import type { TrustProxy } from "./trust-proxy.js";

export const UNSAFE_SETTINGS = [
  "payment_mode_test",
  "registration_open",
  "smtp_unset",
  "mail_transport_log",
  "trust_proxy_true",
  "trust_proxy_hops_public_host",
] as const;
export type UnsafeSettingName = (typeof UNSAFE_SETTINGS)[number];

export interface UnsafeSetting {
  name: UnsafeSettingName;
  /** One line: what is set, why it is unsafe, what to set instead. */
  warning: string;
}

interface Checked {
  production: boolean;
  postgres: boolean;
  paymentMode: PaymentMode;
  registrationMode: RegistrationMode;
  smtpUrl: string | null;
  mailTransport: "smtp" | "log";
  trustProxy: TrustProxy;
  host: string;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

/**
 * The unsafe settings of a configuration. Payment, registration and mail count on PostgreSQL or in
 * production (the embedded database is for trying: its defaults are meant); proxy trust always.
 */
export function unsafeSettingsOf(c: Checked): UnsafeSetting[] {
  const found: UnsafeSetting[] = [];
  const productionLike = c.production || c.postgres;
  if (productionLike && c.paymentMode === "test") {
    found.push({ name: "payment_mode_test", warning: "PAYMENT_MODE=test: providers without credentials run in demo mode and demo cards create orders; set PAYMENT_MODE=live" });
  }
  if (productionLike && c.registrationMode === "open") {
    found.push({ name: "registration_open", warning: "REGISTRATION_MODE=open: anyone can register, and the first to register owns the default organization; set REGISTRATION_MODE=disabled once the owner exists" });
  }
  if (productionLike && c.mailTransport === "smtp" && c.smtpUrl === null) {
    found.push({ name: "smtp_unset", warning: "SMTP_URL is not set: no mail (magic links, invitations, receipts) is sent, they are only kept in mail_outbox; set SMTP_URL" });
  }
  if (productionLike && c.mailTransport === "log") {
    found.push({ name: "mail_transport_log", warning: "MAIL_TRANSPORT=log: mail bodies, magic sign-in links included, are written to the log, so whoever reads the log can sign in; unset it and set SMTP_URL" });
  }
  if (c.trustProxy === true) {
    found.push({ name: "trust_proxy_true", warning: "TRUST_PROXY=true: the left-most X-Forwarded-For address is taken as the client, which any client can write (rate limits and the card-testing defence can be bypassed); set TRUST_PROXY to the proxy's addresses (127.0.0.1 or 10.0.0.0/8)" });
  }
  if (typeof c.trustProxy === "number" && !LOOPBACK.test(c.host)) {
    found.push({ name: "trust_proxy_hops_public_host", warning: `TRUST_PROXY=${c.trustProxy} (a hop count) with HOST=${c.host}: a client reaching the instance directly, past the proxy, chooses its address; set TRUST_PROXY to the proxy's addresses, or listen on 127.0.0.1 only` });
  }
  return found;
}

/** ALLOW_UNSAFE: comma-separated names of UNSAFE_SETTINGS; an unknown name is an error text. */
export function parseAllowUnsafe(raw: string | undefined): UnsafeSettingName[] | { error: string } {
  const names = (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = names.filter((n) => !(UNSAFE_SETTINGS as readonly string[]).includes(n));
  if (unknown.length > 0) return { error: `ALLOW_UNSAFE names unknown settings (${unknown.join(", ")}); known: ${UNSAFE_SETTINGS.join(", ")}` };
  return names as UnsafeSettingName[];
}

/** With NODE_ENV=production: why the service must not start (the unsafe settings ALLOW_UNSAFE does not name), or null. */
export function productionRefusal(config: { production: boolean; unsafe: UnsafeSetting[]; allowUnsafe: UnsafeSettingName[] }): string | null {
  if (!config.production) return null;
  const refused = config.unsafe.filter((u) => !config.allowUnsafe.includes(u.name));
  if (refused.length === 0) return null;
  return [
    `NODE_ENV=production with ${refused.length} unsafe setting${refused.length === 1 ? "" : "s"} (fix each, or acknowledge it with ALLOW_UNSAFE=${refused.map((u) => u.name).join(",")}):`,
    ...refused.map((u) => `  ${u.name}: ${u.warning}`),
  ].join("\n");
}
