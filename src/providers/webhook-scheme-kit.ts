import { createHmac } from "node:crypto";
import { Type, type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import type { DisputeStatus } from "../db/schema/disputes.js";
import { AppError } from "../lib/errors.js";

export type { DisputeStatus };

/**
 * What every provider's incoming-notification scheme is built from (docs/webhooks.md "Provider
 * schemes"): the normalised notification and the scheme interface, header and HMAC helpers, and the
 * normalised body (the demo scheme's and the Standard Webhooks providers'). The schemes themselves
 * are in each provider's folder (`<folder>/webhook.ts`) or, when shared, in webhook-schemes.ts.
 */

export type Headers = Record<string, string | string[] | undefined>;
export type PaymentStatus = "succeeded" | "failed" | "refunded";

/**
 * A provider's dispute (chargeback) of one charge, translated (src/orders/disputes applies it). The charge is
 * found by its transaction id, else the provider's order id, else our order id.
 */
export interface DisputeNotice {
  providerDisputeId: string;
  transactionId: string | null;
  /** The provider's own order id, for providers whose disputes name no transaction (the hosted store). */
  providerOrderId?: string | null;
  orderId: string | null;
  /** Minor units; null: the whole charge. */
  amountCents: number | null;
  /** Upper-case ISO 4217; null: the charge's. */
  currency: string | null;
  reason: string | null;
  status: DisputeStatus;
  /** Until when the provider takes evidence (Unix ms), when it says. */
  dueAt: number | null;
}

/** What every provider's payload is translated into. `status` null: an event type we do not act on (unless it carries disputes). */
export interface ProviderNotification {
  /** The provider's event id (deduplication key). */
  id: string;
  /** Our type (`payment.succeeded` …) when mapped, else the provider's own event type. */
  type: string;
  status: PaymentStatus | null;
  /** Our order id (the merchant's `orderId`), when the payload carries it. */
  orderId: string | null;
  transactionId?: string;
  reason?: string;
  /** A brand named inside the payload (only the Standard Webhooks form has it). */
  brandId?: string;
  /** The disputes the event reports (one, or a batch of chargebacks). */
  disputes?: DisputeNotice[];
  payload: Record<string, unknown>;
}

export interface SignatureCheck {
  valid: boolean;
  /** The signed timestamp (Unix seconds) when the scheme has one: checked against the 5-minute tolerance. */
  timestamp?: number;
}

export interface ProviderScheme {
  /** Human name of the scheme, for docs and logs. */
  name: string;
  /** The header whose presence says the notification is signed with this scheme. */
  signatureHeader: string;
  /** Checks the signature over the exact request bytes; throws 400 for unreadable headers. */
  verify(headers: Headers, raw: Buffer, secret: string): SignatureCheck;
  /** Translates the (not yet trusted) payload; throws 400 for malformed or unexpected bodies. */
  parse(text: string, headers: Headers): ProviderNotification;
}

export const refused = (message: string) => new AppError("BAD_REQUEST", message);

export const headerOf = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export const hmac = (key: string | Uint8Array, ...parts: (string | Buffer)[]) => {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return mac;
};

/** `a=1,b=2,b=3` → { a: ["1"], b: ["2", "3"] }. */
export function pairs(header: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const item of header.split(",")) {
    const at = item.indexOf("=");
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    out.set(key, [...(out.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  return out;
}

export const timestampOf = (value: string | undefined): number => {
  if (value === undefined || !/^\d{1,12}$/.test(value)) throw refused("Invalid webhook timestamp");
  return Number(value);
};

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON", "Malformed JSON body");
  }
}

export function checked<T extends TSchema>(schema: T, value: unknown): Static<T> {
  if (!Value.Check(schema, value)) {
    const first = [...Value.Errors(schema, value)][0];
    throw new AppError("VALIDATION_ERROR", `Invalid notification: ${first?.message ?? "unexpected shape"}`, first?.instancePath?.replace(/^\//, "").replaceAll("/", ".") || undefined);
  }
  return value as Static<T>;
}

export const Id = Type.String({ minLength: 1, maxLength: 200 });
export const OptionalText = (maxLength = 200) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

/** The normalised body (the demo scheme's and the Standard Webhooks providers'). */
export const NormalisedBody = Type.Object({
  id: Id,
  type: Type.Union([Type.Literal("payment.succeeded"), Type.Literal("payment.failed"), Type.Literal("payment.refunded")]),
  data: Type.Object({
    orderId: Id,
    transactionId: Type.Optional(Type.String({ maxLength: 200 })),
    brandId: Type.Optional(Type.String({ maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  }),
});

const STATUS_OF_TYPE = { "payment.succeeded": "succeeded", "payment.failed": "failed", "payment.refunded": "refunded" } as const;

export function parseNormalised(text: string): ProviderNotification {
  const body = checked(NormalisedBody, parseJson(text));
  return {
    id: body.id,
    type: body.type,
    status: STATUS_OF_TYPE[body.type],
    orderId: body.data.orderId,
    transactionId: body.data.transactionId,
    reason: body.data.reason,
    brandId: body.data.brandId,
    payload: body as unknown as Record<string, unknown>,
  };
}
