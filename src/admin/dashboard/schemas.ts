import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../../http/mode.js";

// Not in SPEC: the dashboard's sales figures (docs/admin.md "Dashboard figures").

export const DASHBOARD_DAYS_DEFAULT = 30;
export const DASHBOARD_DAYS_MAX = 366;

export const DashboardQuery = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: DASHBOARD_DAYS_MAX, default: DASHBOARD_DAYS_DEFAULT, description: "the window: the last N days (UTC), today included" }),
  livemode: LivemodeParam,
  test: Type.Optional(Type.Boolean({ description: "deprecated, `livemode` wins: true is livemode=false, false is livemode=true" })),
});
export type DashboardQuery = Static<typeof DashboardQuery>;

const Money = { revenueCents: Type.Integer({ description: "minor units of `currency`, net of refunds; orders whose payment a provider reported failed or refunded are not counted" }) };

export const DashboardReply = Type.Object({
  brandId: Type.String(),
  livemode: LivemodeMember,
  from: Type.Number({ description: "Unix ms, start of the first day (UTC)" }),
  to: Type.Number({ description: "Unix ms, now" }),
  totals: Type.Array(
    Type.Object({
      currency: Type.String(),
      orders: Type.Integer({ description: "checkout and upsell orders" }),
      checkoutOrders: Type.Integer(),
      upsellOrders: Type.Integer(),
      ...Money,
    }),
    { description: "per currency, in the window" },
  ),
  daily: Type.Array(Type.Object({ date: Type.String({ description: "YYYY-MM-DD (UTC)" }), currency: Type.String(), orders: Type.Integer(), ...Money }), { description: "days with orders only, oldest first" }),
  offers: Type.Array(
    Type.Object({
      offerId: Type.String(),
      offerName: Type.Union([Type.String(), Type.Null()], { description: "the offer's name: its funnel variant's, else the latest session's that showed it; null when none is kept" }),
      currency: Type.String(),
      shown: Type.Integer(),
      accepted: Type.Integer(),
      declined: Type.Integer(),
      takeRate: Type.Number({ description: "percent of shown offers accepted, one decimal (0 when never shown)" }),
      ...Money,
    }),
    { description: "upsell take rate per offer and currency since the brand began (running counters, not windowed)" },
  ),
});
export type DashboardReply = Static<typeof DashboardReply>;
