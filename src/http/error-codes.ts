// The one catalogue of error codes (CONTRACT §2, §3): each code's HTTP status and its default text,
// the `error` a client reads unless the error names its case (then the text says which). Every
// AppError takes a code from here (lib/errors.ts `ErrorCode`), so an unknown code does not compile;
// docs/merchant-api.md "Error codes" lists this table (checked by src/http/error-codes.unit.test.ts).
// `spec`: the other texts SPEC.md's error table prescribes under the code, each exact.

interface CatalogueEntry {
  status: number;
  message: string;
  spec?: readonly string[];
}

export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, message: "Invalid request", spec: ["Missing token or provider", "Missing required fields", "Missing fields"] },
  INVALID_JSON: { status: 400, message: "Malformed JSON body" },
  BAD_REQUEST: { status: 400, message: "Bad request" },
  PROVIDER_NOT_ALLOWED: { status: 400, message: "Payment provider not allowed for this checkout" },
  PAYMENT_NOT_VERIFIED: { status: 400, message: "Payment could not be verified" },
  SESSION_EXPIRED: { status: 400, message: "Session expired" },
  EMAIL_EXISTS: { status: 400, message: "Email already exists" },
  TWO_FACTOR_NOT_ENABLED: { status: 400, message: "2FA not enabled" },
  TWO_FACTOR_ALREADY_ENABLED: { status: 400, message: "2FA already enabled" },
  NO_BRAND: { status: 400, message: "No brand selected", spec: ["No brand context"] },
  DOMAIN_REQUIRED: { status: 400, message: "Domain is required" },
  INVALID_DOMAIN: { status: 400, message: "Invalid domain format" },
  HOSTING_NOT_CONFIGURED: { status: 400, message: "Hosting platform not configured" },
  INVALID_MAPPINGS: { status: 400, message: "Invalid mappings" },
  INTEGRATION_NOT_CONFIGURED: { status: 400, message: "Integration not configured" },
  INVALID_TOKEN: { status: 401, message: "Invalid token" },
  UNAUTHORIZED: { status: 401, message: "Unauthorized" },
  INVALID_CREDENTIALS: { status: 401, message: "Invalid email or password" },
  INVALID_CODE: { status: 401, message: "Invalid code" },
  PAYMENT_FAILED: { status: 402, message: "Payment failed", spec: ["Payment failed: <reason>"] },
  REFUND_FAILED: { status: 402, message: "Refund failed" },
  FORBIDDEN: { status: 403, message: "Forbidden" },
  CSRF_REJECTED: { status: 403, message: "Cross-site request refused" },
  REGISTRATION_DISABLED: { status: 403, message: "New user registration is currently disabled" },
  NO_ORGANIZATION: { status: 403, message: "No organization selected" },
  NOT_FOUND: { status: 404, message: "Not found", spec: ["Domain not found"] },
  CHECKOUT_NOT_FOUND: { status: 404, message: "Checkout not found" },
  OFFER_NOT_FOUND: { status: 404, message: "Offer not found in session" },
  CONFLICT: { status: 409, message: "Conflict" },
  DOMAIN_EXISTS: { status: 409, message: "Domain already exists" },
  ALREADY_REFUNDED: { status: 409, message: "Charge already fully refunded" },
  DISPUTE_CLOSED: { status: 409, message: "Dispute is already closed" },
  CHARGE_DISPUTED: { status: 409, message: "Charge is disputed: answer the dispute instead" },
  DISPUTE_REFUSED: { status: 409, message: "Dispute answer refused" },
  LAST_OWNER: { status: 409, message: "The last owner of an organization cannot be demoted or removed" },
  LAST_BRAND: { status: 409, message: "An organization keeps at least one brand" },
  SLUG_TAKEN: { status: 409, message: "Slug already exists" },
  CURRENT_ORGANIZATION: { status: 409, message: "Switch to another organization before deleting this one" },
  DEFAULT_TENANT: { status: 409, message: "The platform's default organization or brand cannot be deleted" },
  IDEMPOTENCY_CONFLICT: { status: 409, message: "Order already completed with another transaction or amount" },
  CHECKOUT_COMPLETED: { status: 409, message: "Checkout already completed" },
  ORDER_ID_TAKEN: { status: 409, message: "orderId already has a checkout" },
  REQUEST_IN_PROGRESS: { status: 409, message: "Request in progress" },
  IDEMPOTENCY_KEY_USED: { status: 409, message: "This Idempotency-Key already made a resource" },
  ALREADY_PAID: { status: 409, message: "Order already paid" },
  PROVIDER_NOT_CONFIGURED: { status: 409, message: "Payment provider not configured" },
  TEST_MODE_DISABLED: { status: 409, message: "Test mode is disabled on this service (PAYMENT_MODE=live)" },
  CHECKOUT_EXPIRED: { status: 410, message: "Checkout expired" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "Request body too large (limit 1 MiB)" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Unsupported content type: send application/json" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: "Idempotency key reused with different parameters" },
  RATE_LIMITED: { status: 429, message: "Too many requests" },
  TOO_MANY_DECLINES: { status: 429, message: "Too many declined payments, try again later" },
  ACCOUNT_LOCKED: { status: 429, message: "Too many failed login attempts; password login is locked, try again later or use a magic link" },
  TOO_MANY_LOGIN_ATTEMPTS: { status: 429, message: "Too many failed login attempts; try again later" },
  INTERNAL_ERROR: { status: 500, message: "Internal server error" },
  LISTS_FETCH_FAILED: { status: 500, message: "Failed to fetch lists" },
  PROVIDER_ERROR: { status: 502, message: "Payment provider failed" },
  HOSTING_ERROR: { status: 502, message: "Hosting platform request failed" },
  SERVICE_UNAVAILABLE: { status: 503, message: "Service temporarily unavailable" },
  OVERLOADED: { status: 503, message: "Service busy" },
  MAINTENANCE: { status: 503, message: "System is under maintenance" },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof ERROR_CODES;

// lib/ knows no HTTP: its AppError takes `keyof ErrorCodes`, which this catalogue fills.
declare module "../lib/errors.js" {
  interface ErrorCodes extends Catalogue {}
}

export const isErrorCode = (code: string): code is keyof Catalogue => Object.hasOwn(ERROR_CODES, code);
