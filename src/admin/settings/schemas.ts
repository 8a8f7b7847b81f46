import { Type, type Static } from "typebox";
import { CATEGORIES, PROVIDER_SETTINGS, SETTINGS_PROVIDERS, type SettingsProvider } from "../../providers/catalog.js";

/** Which providers take a key, for the OpenAPI description of each settings key. */
function usedBy(key: string): string {
  const providers = SETTINGS_PROVIDERS.filter((p: SettingsProvider) => [...PROVIDER_SETTINGS[p].required, ...PROVIDER_SETTINGS[p].optional].includes(key));
  const required = providers.filter((p) => PROVIDER_SETTINGS[p].required.includes(key));
  const secret = providers.some((p) => PROVIDER_SETTINGS[p].secrets.includes(key));
  return `${secret ? "Secret (sealed at rest, answered masked). " : ""}Taken by ${providers.join(", ")}${required.length ? `; required by ${required.join(", ")}` : ""}. An empty string removes the stored value; omitted keeps it.`;
}

const text = (key: string) => Type.Optional(Type.String({ maxLength: 4096, description: usedBy(key) }));
const flag = (key: string, description?: string) => Type.Optional(Type.Boolean({ description: description ?? usedBy(key) }));

/** Every key of CONTRACT's settings table; a provider ignores the keys it does not take. */
export const SettingsValues = Type.Object(
  {
    enabled: flag("enabled", "Every provider: whether the brand uses it (checkout offers enabled payment providers, CONTRACT §4)."),
    publishableKey: text("publishableKey"),
    secretKey: text("secretKey"),
    securityKey: text("securityKey"),
    apiUsername: text("apiUsername"),
    apiPassword: text("apiPassword"),
    campaignId: text("campaignId"),
    shopDomain: text("shopDomain"),
    accessToken: text("accessToken"),
    apiKey: text("apiKey"),
    webhookSecret: text("webhookSecret"),
    baseUrl: Type.Optional(Type.String({ maxLength: 2048, description: `An http(s) URL. ${usedBy("baseUrl")}` })),
    failOnCrmError: flag("failOnCrmError"),
  },
  { additionalProperties: true, description: "Unknown keys are ignored." },
);

export const UpdateSettingsBody = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 64, description: `One of ${SETTINGS_PROVIDERS.join(", ")}` }),
  settings: SettingsValues,
  mode: Type.Optional(
    Type.Union([Type.Literal("live"), Type.Literal("test")], {
      description:
        "Not in SPEC (issue 33): which credentials these are. `live` (the default, as before): charged for live objects. `test`: the provider's sandbox credentials (same keys, typically a sandbox `baseUrl`), used for test objects instead of the demo adapter; never for a live object.",
    }),
  ),
});
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>;

const Status = Type.Union([Type.Literal("configured"), Type.Literal("not_configured")]);
/** One provider's settings as answered: `enabled`, clear keys, secrets masked (`sk_…4242`). */
const MaskedSettings = Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean()]));

export const SettingsReply = Type.Object({
  settings: Type.Record(Type.String(), MaskedSettings),
  status: Type.Record(Type.String(), Status),
  testSettings: Type.Record(Type.String(), MaskedSettings, {
    description: "Not in SPEC (issue 33): each provider's TEST (sandbox) credentials, masked as `settings`; `{ enabled: false }` when none are saved (test objects then use the demo adapter)",
  }),
  testStatus: Type.Record(Type.String(), Status, { description: "Not in SPEC (issue 33): `configured` when the provider's test (sandbox) credentials are complete" }),
  providers: Type.Array(Type.String()),
  categories: Type.Array(Type.String({ enum: [...CATEGORIES] })),
  providerCategories: Type.Record(Type.String(), Type.Array(Type.String())),
  fields: Type.Record(
    Type.String(),
    Type.Object({
      required: Type.Array(Type.String()),
      optional: Type.Array(Type.String()),
      secrets: Type.Array(Type.String()),
      booleans: Type.Array(Type.String()),
    }),
    { description: "Not in SPEC: each provider's keys besides `enabled` (required for `configured`, optional, which are secrets, which are booleans), for the settings form" },
  ),
  brandId: Type.String(),
  demoOutages: Type.Record(Type.String(), Type.Union([Type.Literal("down"), Type.Literal("timeout")]), {
    description: "Not in SPEC (issue 34): the payment providers whose \"Simulate outage\" switch is on in test mode, and how (`down`, `timeout`)",
  }),
});
export type SettingsReply = Static<typeof SettingsReply>;

export const UpdateSettingsReply = Type.Object({
  success: Type.Literal(true),
  provider: Type.String(),
  mode: Type.Union([Type.Literal("live"), Type.Literal("test")], { description: "Not in SPEC (issue 33): which credentials were saved" }),
  status: Status,
  settings: MaskedSettings,
});
export type UpdateSettingsReply = Static<typeof UpdateSettingsReply>;

const Outage = Type.Union([Type.Literal("down"), Type.Literal("timeout"), Type.Literal("off")], {
  description:
    "Not in SPEC (issue 34): `down`: the provider's demo adapter fails at once (502 PROVIDER_ERROR, nothing charged); `timeout`: it charges, answers nothing for 1.5 s, then fails (502; a repeat with the same provider idempotency key answers the charge made); `off`: normal",
});

export const DemoOutageBody = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 64, description: "A payment provider" }),
  outage: Outage,
  livemode: Type.Optional(Type.Boolean({ description: "Must be false (the default): the switch exists in test mode only; true is 409 OUTAGE_TEST_MODE_ONLY" })),
});
export type DemoOutageBody = Static<typeof DemoOutageBody>;

export const DemoOutageReply = Type.Object({ success: Type.Literal(true), provider: Type.String(), outage: Outage, livemode: Type.Literal(false) });
export type DemoOutageReply = Static<typeof DemoOutageReply>;

export const BrandingReply = Type.Object({
  companyName: Type.String(),
  logoUrl: Type.Optional(Type.String({ description: "Not in SPEC: the brand's logo (https URL), when stored" })),
  color: Type.Optional(Type.String({ description: "Not in SPEC: the brand's colour (#rrggbb), when stored" })),
});
export type BrandingReply = Static<typeof BrandingReply>;

export const UpdateBrandingBody = Type.Object({
  logoUrl: Type.Optional(Type.String({ maxLength: 2048, description: "https URL of the logo (http only for localhost); empty string removes it, omitted keeps it" })),
  color: Type.Optional(Type.String({ maxLength: 7, description: "#rrggbb; empty string removes it, omitted keeps it" })),
});
export type UpdateBrandingBody = Static<typeof UpdateBrandingBody>;

export const UpdateBrandingReply = Type.Object({ success: Type.Literal(true), ...BrandingReply.properties });
