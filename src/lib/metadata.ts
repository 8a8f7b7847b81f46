import { Type, type Static } from "typebox";

// Issue 33: merchant metadata, Stripe's limits. One schema for every object that takes it (a checkout's
// token claim and POST /api/v1/checkouts, upsell sessions, refunds), so the limits cannot drift apart.

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

/** String keys (at most 40 characters) to string values (at most 500), at most 50 keys. */
export const Metadata = Type.Record(Type.String(), Type.String({ maxLength: METADATA_MAX_VALUE_LENGTH }), {
  maxProperties: METADATA_MAX_KEYS,
  // A Record's key schema is not checked (patternProperties `^.*$`); propertyNames is.
  propertyNames: { maxLength: METADATA_MAX_KEY_LENGTH },
  description: `your own key-value pairs: at most ${METADATA_MAX_KEYS} keys of at most ${METADATA_MAX_KEY_LENGTH} characters, string values of at most ${METADATA_MAX_VALUE_LENGTH}`,
});
export type Metadata = Static<typeof Metadata>;
