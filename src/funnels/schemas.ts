import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";
import { DayParam } from "../lib/dates.js";
import { httpUrl, MAX_OFFERS } from "../upsell/schemas.js";

// The administration API of upsell funnels (issue 19, docs/funnels.md). Money is integer minor units.

const MAX_CENTS = 100_000_000_00;
const text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });
const currencyCode = () => Type.String({ pattern: "^[A-Z]{3}$" });
const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, maxItems = 100) => Type.Array(item, { minItems: 1, maxItems });
const priceMap = () => Type.Record(Type.String({ pattern: "^[A-Z]{3}$" }), Type.Integer({ minimum: 1, maximum: MAX_CENTS }), { maxProperties: 50, propertyNames: { pattern: "^[A-Z]{3}$" } });

// One object shape per level, no unions of objects: the body validator drops unknown members, which
// would break `anyOf` branches. manage.ts checks each condition's members for its type.
const CONDITION_TYPES = ["product", "orderTotal", "currency", "country", "firstOrder"] as const;
const conditionMembers = {
  productIds: Type.Optional(list(text())),
  productNames: Type.Optional(list(text(500))),
  min: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  max: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  in: Type.Optional(list(Type.String({ pattern: "^[A-Z]{2,3}$", description: "currency (ISO 4217) or country (ISO 3166-1 alpha-2) codes" }), 250)),
  value: Type.Optional(Type.Boolean()),
};
const Match = Type.Enum(["all", "any"]);
export const FunnelCondition = Type.Object({ type: Type.Enum([...CONDITION_TYPES]), ...conditionMembers });
/** A condition, or (`type: "group"`) an AND/OR group of conditions: two levels at most. No condition: every order. */
export const FunnelTriggerNode = Type.Object({
  type: Type.Enum([...CONDITION_TYPES, "group"]),
  ...conditionMembers,
  match: Type.Optional(Match),
  conditions: Type.Optional(Type.Array(FunnelCondition, { minItems: 1, maxItems: 20 })),
});
export const FunnelTrigger = Type.Object({ match: Match, conditions: Type.Array(FunnelTriggerNode, { maxItems: 20 }) });
export type FunnelTrigger = Static<typeof FunnelTrigger>;

export const FunnelOffer = Type.Object({
  name: text(500),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  image: Type.Optional(Type.String({ maxLength: 2048 })),
  productId: Type.Optional(text()),
  price: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CENTS, description: "minor units of the order's currency" })),
  prices: Type.Optional(priceMap()),
  originalPrice: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  originalPrices: Type.Optional(priceMap()),
  externalPageUrl: Type.Optional(httpUrl()),
});
export const FunnelVariant = Type.Object({
  id: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_-]{1,40}$", description: "kept across versions; made up when omitted" })),
  weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "default 1" })),
  offer: FunnelOffer,
  downsell: Type.Optional(FunnelOffer),
});
/** A step: one offer, or two to four variants of it in a split test. */
export const FunnelStep = Type.Object({ variants: Type.Array(FunnelVariant, { minItems: 1, maxItems: 4 }) });

const status = Type.Enum(["draft", "live", "paused"]);
const funnelMembers = {
  name: text(200),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: "lower runs first; default 100" })),
  status: Type.Optional(status),
  minSamplePerVariant: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: "default 300" })),
  commissionRate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: "fraction of each upsell charge for the original order's salesperson; null (default): the original order's rate" })),
  trigger: Type.Optional(FunnelTrigger),
  steps: Type.Array(FunnelStep, { minItems: 1, maxItems: MAX_OFFERS }),
};
export const CreateFunnelBody = Type.Object(funnelMembers);
export type CreateFunnelBody = Static<typeof CreateFunnelBody>;
export const UpdateFunnelBody = Type.Partial(Type.Object(funnelMembers));
export type UpdateFunnelBody = Static<typeof UpdateFunnelBody>;

export const FunnelIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export type FunnelIdParams = Static<typeof FunnelIdParams>;

const StoredOfferView = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  image: Type.Optional(Type.String()),
  productId: Type.Optional(Type.String()),
  price: Type.Optional(Type.Integer()),
  prices: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  originalPrice: Type.Optional(Type.Integer()),
  originalPrices: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  externalPageUrl: Type.Optional(Type.String()),
});
export const FunnelView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  priority: Type.Integer(),
  status: status,
  version: Type.Integer({ description: "the version new sessions start with" }),
  minSamplePerVariant: Type.Integer(),
  commissionRate: Type.Union([Type.Number(), Type.Null()]),
  trigger: Type.Unknown({ description: "FunnelTrigger" }),
  steps: Type.Array(Type.Object({ variants: Type.Array(Type.Object({ id: Type.String(), weight: Type.Integer(), offer: StoredOfferView, downsell: Type.Optional(StoredOfferView) })) })),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
});
export type FunnelView = Static<typeof FunnelView>;
export const FunnelReply = Type.Object({ success: Type.Literal(true), funnel: FunnelView });
export type FunnelReply = Static<typeof FunnelReply>;
export const FunnelsReply = Type.Object({ funnels: Type.Array(FunnelView) });
export type FunnelsReply = Static<typeof FunnelsReply>;
export const DeletedReply = Type.Object({ success: Type.Literal(true) });

export const PromoteBody = Type.Object({ stepIndex: Type.Integer({ minimum: 0, maximum: MAX_OFFERS - 1 }), variantId: text(40) });
export type PromoteBody = Static<typeof PromoteBody>;

export const StatsQuery = Type.Object({
  from: Type.Optional(DayParam("the first day (inclusive)")),
  to: Type.Optional(DayParam("the last day (inclusive)")),
  currency: Type.Optional(currencyCode()),
  livemode: LivemodeParam,
});
export type StatsQuery = Static<typeof StatsQuery>;

export const VariantStats = Type.Object({
  variantId: Type.String(),
  impressions: Type.Integer(),
  accepts: Type.Integer(),
  declines: Type.Integer(),
  downsellImpressions: Type.Integer(),
  downsellAccepts: Type.Integer(),
  takeRate: Type.Number(),
  grossRevenue: Type.Integer(),
  refunded: Type.Integer(),
  netRevenue: Type.Integer(),
  revenuePerImpression: Type.Number(),
  averageUpsellValue: Type.Number(),
  probabilityBestTakeRate: Type.Number(),
  probabilityBestRevenue: Type.Number(),
  winner: Type.Boolean(),
});
export type VariantStats = Static<typeof VariantStats>;
export const FunnelStatsReply = Type.Object({
  funnelId: Type.String(),
  livemode: LivemodeMember,
  from: Type.String(),
  to: Type.String(),
  currency: Type.Union([Type.String(), Type.Null()]),
  sessions: Type.Integer(),
  sessionsWithAccept: Type.Integer(),
  grossRevenue: Type.Integer(),
  refunded: Type.Integer(),
  netRevenue: Type.Integer(),
  netRevenuePerCheckout: Type.Number(),
  steps: Type.Array(Type.Object({ stepIndex: Type.Integer(), variants: Type.Array(VariantStats) })),
});
export type FunnelStatsReply = Static<typeof FunnelStatsReply>;
