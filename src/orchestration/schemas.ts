import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";

// The administration API of routing rules (issue 34 item 2, docs/orchestration.md "Routing rules").
// One object shape per level, no unions of objects (the body validator drops unknown members, which
// would break `anyOf` branches): routing.ts checks each target's members for its type.

const MAX_CENTS = Number.MAX_SAFE_INTEGER;
const text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });
const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, maxItems = 100) => Type.Array(item, { maxItems });
const provider = () => Type.String({ minLength: 1, maxLength: 100, description: "a card-taking payment provider (not hosted_store)" });
const binPrefix = () => Type.String({ pattern: "^[0-9]{6,8}$", description: "6–8 digit BIN prefix; compared on the card's first 6 digits" });

export const CARD_BRANDS = ["visa", "mastercard", "amex", "discover", "jcb", "diners", "unionpay", "maestro"] as const;

export const RoutingConditions = Type.Object({
  amountMin: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS, description: "minor units, inclusive" })),
  amountMax: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS, description: "minor units, exclusive" })),
  currencies: Type.Optional(list(Type.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217" }), 300)),
  countries: Type.Optional(list(Type.String({ pattern: "^[A-Za-z]{2}$", description: "the buyer's country, ISO 3166-1 alpha-2" }), 300)),
  cardBrands: Type.Optional(list(Type.Enum([...CARD_BRANDS]))),
  binRanges: Type.Optional(list(Type.Object({ from: binPrefix(), to: binPrefix() }))),
  binCountries: Type.Optional(list(Type.String({ pattern: "^[A-Za-z]{2}$", description: "the card's issuing country, ISO 3166-1 alpha-2" }), 300)),
  productIds: Type.Optional(list(text())),
  funnelIds: Type.Optional(list(text())),
  buyer: Type.Optional(Type.Enum(["first", "returning"])),
});

export const RoutingTarget = Type.Object({
  type: Type.Enum(["provider", "split", "best_of"]),
  provider: Type.Optional(provider()),
  splits: Type.Optional(list(Type.Object({ provider: provider(), weight: Type.Number({ maximum: 1_000_000 }) }), 20)),
  providers: Type.Optional(list(provider(), 20)),
  explorationPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: "best_of: share of orders sent first to another provider (default 10)" })),
});

export const RoutingCap = Type.Object({
  provider: provider(),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  dailyAmount: Type.Integer({ minimum: 0, maximum: MAX_CENTS, description: "approved volume per UTC day, minor units, after which the rule skips the provider" }),
});

export const RoutingRuleBody = Type.Object({
  id: Type.Optional(Type.String({ pattern: "^rul_[A-Za-z0-9_-]{1,64}$", description: "kept when given; made up when omitted" })),
  name: text(),
  conditions: Type.Optional(RoutingConditions),
  target: RoutingTarget,
  caps: Type.Optional(list(RoutingCap, 20)),
});
export type RoutingRuleBody = Static<typeof RoutingRuleBody>;

/** As stored: brands read as text, so a brand added later still reads back. */
const RoutingConditionsView = Type.Object({ ...RoutingConditions.properties, cardBrands: Type.Optional(Type.Array(Type.String())) });

export const RoutingRuleView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  conditions: RoutingConditionsView,
  target: RoutingTarget,
  caps: Type.Optional(Type.Array(RoutingCap)),
});

const BrandIdMember = Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "the session's selected brand (default); another brand is 404" }));

export const RoutingQuery = Type.Object({ brandId: BrandIdMember, livemode: LivemodeParam });
export type RoutingQuery = Static<typeof RoutingQuery>;

export const VersionParams = Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export type VersionParams = Static<typeof VersionParams>;

export const UpdateRoutingBody = Type.Object({
  brandId: BrandIdMember,
  livemode: Type.Boolean({ description: "the mode whose rules are saved: true live, false test" }),
  rules: list(RoutingRuleBody, 100),
  maxProviders: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, description: "providers a pay request may try (cascade); default: the current version's, else 2" })),
});
export type UpdateRoutingBody = Static<typeof UpdateRoutingBody>;

const VersionSummary = Type.Object({
  version: Type.Integer(),
  createdAt: Type.Number({ description: "Unix ms" }),
  createdBy: Type.Union([Type.String(), Type.Null()], { description: "user id" }),
  createdByName: Type.Union([Type.String(), Type.Null()]),
});

export const RoutingReply = Type.Object({
  brandId: Type.String(),
  livemode: LivemodeMember,
  version: Type.Integer({ description: "0 before the first save: no rules, the default rule alone" }),
  rules: Type.Array(RoutingRuleView),
  maxProviders: Type.Integer(),
  versions: Type.Array(VersionSummary, { description: "newest first, up to 100" }),
  providers: Type.Array(Type.String(), { description: "the card-taking providers a rule may name" }),
});
export type RoutingReply = Static<typeof RoutingReply>;

export const RoutingVersionReply = Type.Object({
  brandId: Type.String(),
  livemode: LivemodeMember,
  version: Type.Integer(),
  rules: Type.Array(RoutingRuleView),
  maxProviders: Type.Integer(),
  createdAt: Type.Number({ description: "Unix ms" }),
  createdBy: Type.Union([Type.String(), Type.Null()]),
  createdByName: Type.Union([Type.String(), Type.Null()]),
});
export type RoutingVersionReply = Static<typeof RoutingVersionReply>;
