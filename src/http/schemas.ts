import { Type } from "typebox";

/** The OpenAPI tag of every /api/v1 route (the merchant servers' API), whichever feature serves it. */
export const MERCHANT_API_TAG = "Merchant API (v1)";

/** The error body of CONTRACT §2, used in every route's OpenAPI responses. */
export const ErrorBody = Type.Object(
  { error: Type.String(), code: Type.Optional(Type.String()), details: Type.Optional(Type.String()) },
  { $id: "ErrorBody", additionalProperties: true },
);

const ref = Type.Unsafe<{ error: string; code?: string; details?: string }>({ $ref: "ErrorBody#" });

/** An HTML page as a route's answer: documented as `text/html` (http/openapi.ts reads `contentMediaType`). */
export const htmlResponse = (description: string) => Type.String({ description, contentMediaType: "text/html" });

/** OpenAPI error responses for a route, by status. */
export function errorResponses(...statuses: number[]): Record<number, typeof ref> {
  return Object.fromEntries(statuses.map((status) => [status, ref]));
}
