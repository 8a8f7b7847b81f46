// The per-request cost of the request metrics: Metrics.observe in a loop (docs/operations.md "Measured").
// Run: npx tsx scripts/metrics-cost.ts
import { Metrics } from "../src/metrics/metrics.js";
const m = new Metrics({ database: { db: {} as never, kind: "pglite-memory", ping: async () => {}, close: async () => {} }, clock: { now: () => Date.now() } as never });
const series = m.route("POST", "/api/checkout/complete");
for (let i = 0; i < 200_000; i++) m.observe(series, 200, 0.004);
const n = 2_000_000;
const t = process.hrtime.bigint();
for (let i = 0; i < n; i++) m.observe(series, i % 50 === 0 ? 404 : 200, (i % 100) / 1000);
const ns = Number(process.hrtime.bigint() - t) / n;
console.log(`observe: ${ns.toFixed(0)} ns per request (${n} calls)`);
