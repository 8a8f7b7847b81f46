import { Type } from "typebox";

/** The OpenAPI tag of every /api/v1 route (the merchant servers' API), whichever feature serves it. */
export const MERCHANT_API_TAG = "Merchant API (v1)";

/**
 * The error body of CONTRACT §2, used in every route's OpenAPI responses. `requestId` and `docUrl`
 * are in every error answer (src/http/errors.ts adds them after serialization, which is why they are
 * not `required` here: a required member the serializer does not see yet would fail it).
 */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "For people; may change. Match on `code`." }),
    code: Type.Optional(Type.String({ description: "Stable SCREAMING_SNAKE code, described at docUrl" })),
    details: Type.Optional(Type.String({ description: "The member (dotted path) or the reason, when there is one" })),
    requestId: Type.Optional(Type.String({ description: "Always present: the answer's X-Request-Id; quote it to support" })),
    docUrl: Type.Optional(Type.String({ format: "uri", description: "Always present: <PUBLIC_BASE_URL>/docs/errors#<code>, what the code means and what to do" })),
  },
  { $id: "ErrorBody", additionalProperties: true },
);

const ref = Type.Unsafe<{ error: string; code?: string; details?: string; requestId?: string; docUrl?: string }>({ $ref: "ErrorBody#" });

/** An HTML page as a route's answer: documented as `text/html` (http/openapi.ts reads `contentMediaType`). */
export const htmlResponse = (description: string) => Type.String({ description, contentMediaType: "text/html" });

/** OpenAPI error responses for a route, by status. */
export function errorResponses(...statuses: number[]): Record<number, typeof ref> {
  return Object.fromEntries(statuses.map((status) => [status, ref]));
}
