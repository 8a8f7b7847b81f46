// Every table, one file per feature. drizzle-kit reads this file to generate migrations.
export * from "./tenancy.js";
export * from "./checkout.js";
export * from "./disputes.js";
export * from "./commissions.js";
export * from "./outbox.js";
export * from "./http.js";
export * from "./audit.js";
export * from "./identity.js";
export * from "./providers.js";
export * from "./upsell.js";
export * from "./salespeople.js";
export * from "./webhooks.js";
export * from "./domains.js";
export * from "./merchant-credentials.js";
export * from "./payment-links.js";
export * from "./funnels.js";
export * from "./approval-stats.js";
