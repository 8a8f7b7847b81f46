// `npm run bench:funnels`: the funnel stats query at ten million funnel sessions on PostgreSQL (issue 19:
// "counting stays fast at ten million sessions (pre-aggregated per day)"). Builds, starts the service
// on a fresh database, registers the first user (owner of the default brand), creates a live two-step
// funnel with a split test on its first step through the API, then seeds a year of funnel sessions
// with set-based INSERT … SELECT generate_series, one batch of sessions at a time: the funnel entries
// (`funnel_entries`, one row per session) and the per-day counters the stats query reads
// (`funnel_daily_stats`, added to with ON CONFLICT … DO UPDATE as the service adds to them), then
// VACUUM ANALYZE. Checks that the API's figures for one variant equal a direct SQL sum, then measures
// `GET /api/admin/funnels/<id>/stats` over a year, a month and a day: 20 requests one at a time, then
// 10 connections for 10 s. Writes docs/benchmarks-funnels.md. `npm run bench` runs a small scale of
// it (bench/run.mjs, the `funnels` leg) without writing that page.
//
//   npm run bench:funnels                                  10 000 000 sessions
//   npm run bench:funnels -- --sessions 20000              fewer, for a quick check
//   npm run bench:funnels -- --entries 1000000             counters for all sessions, entry rows for fewer
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { machine, median, sequential, withOwnerOnFreshDatabase } from "./lib/admin-listing.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DAY = 86_400_000;
const YEAR_DAYS = 365;
/** Sessions per INSERT … SELECT: a batch's counters are summed in memory by PostgreSQL, then added. */
const BATCH = 1_000_000;
const FULL_SCALE = 10_000_000;

/** The funnel the benchmark reads: step 0 a split test of two variants (each with a downsell), step 1 one offer. */
const FUNNEL = {
  name: "Bench funnel",
  status: "live",
  steps: [
    {
      variants: [
        { id: "var_a", weight: 1, offer: { name: "Add the travel case", price: 1900, originalPrice: 2900 }, downsell: { name: "The small case", price: 900 } },
        { id: "var_b", weight: 1, offer: { name: "Add the travel case, premium", price: 2400, originalPrice: 3400 }, downsell: { name: "The small case", price: 900 } },
      ],
    },
    { variants: [{ id: "var_c", offer: { name: "Two-year warranty", price: 1500 } }] },
  ],
};

/**
 * One batch of sessions g in [lo, hi], spread evenly over the year before `now` (session 1 now).
 * Every 10th session is in EUR, the rest in USD; shard g % 8. Step 0: variant A or B half each;
 * take rate 12 % (A) and 15 % (B); of the rest 10 % leave without an answer, the others decline
 * and see the downsell, 20 % of them take it. Step 1 is shown to every session that answered step 0
 * (accepted it, or answered its downsell: 85 % of those who saw it); 8 % take it. 3 % of step-0
 * accepts and 2.5 % of step-1 accepts are refunded in full. The three pseudo-random draws r1, r2, r3
 * (0–999) are multiplicative hashes of g, so the same g always gives the same session.
 */
const SESSIONS_SQL = `
  select g,
    to_char(($1::timestamptz - make_interval(secs => (g - 1) * $2::float8)) at time zone 'UTC', 'YYYY-MM-DD') as day,
    $1::timestamptz - make_interval(secs => (g - 1) * $2::float8) as at,
    (g % 8)::smallint as shard,
    case when g % 10 = 0 then 'EUR' else 'USD' end as currency,
    case when (g / 8) % 2 = 0 then 'var_a' else 'var_b' end as v0,
    (g::bigint * 7919) % 1000 as r1, (g::bigint * 104729) % 1000 as r2, (g::bigint * 15485863) % 1000 as r3
  from generate_series($3::bigint, $4::bigint) as g`;

const COUNTERS_SQL = `
  with s as (${SESSIONS_SQL}),
  f as (
    select day, shard, currency, v0, r2, r3,
      r1 < case when v0 = 'var_a' then 120 else 150 end as accept0,
      r1 >= case when v0 = 'var_a' then 120 else 150 end and r1 < 900 as decline0
    from s),
  t as (
    select *, decline0 and r2 < 200 as ds_accept, accept0 or (decline0 and r2 < 850) as shown1 from f),
  u as (
    select *, shown1 and r3 < 80 as accept1, shown1 and r3 >= 80 and r3 < 950 as decline1 from t),
  deltas as (
    select day, -1::smallint as step_index, '' as variant_id, currency, shard,
      1 as sessions, (accept0 or ds_accept or accept1)::int as sessions_with_accept,
      0 as impressions, 0 as accepts, 0 as declines, 0 as downsell_impressions, 0 as downsell_accepts, 0 as revenue_cents, 0 as refunded_cents
    from u
    union all
    select day, 0::smallint, v0, currency, shard, 0, 0,
      1, accept0::int, decline0::int, decline0::int, ds_accept::int,
      case when accept0 then case when v0 = 'var_a' then 1900 else 2400 end when ds_accept then 900 else 0 end,
      case when accept0 and r3 >= 970 then case when v0 = 'var_a' then 1900 else 2400 end else 0 end
    from u
    union all
    select day, 1::smallint, 'var_c', currency, shard, 0, 0,
      1, accept1::int, decline1::int, 0, 0,
      case when accept1 then 1500 else 0 end,
      case when accept1 and r2 % 40 = 0 then 1500 else 0 end
    from u where shown1)
  insert into funnel_daily_stats (funnel_id, day, step_index, variant_id, currency, shard, sessions, sessions_with_accept, impressions,
                                  accepts, declines, downsell_impressions, downsell_accepts, revenue_cents, refunded_cents, updated_at)
  select $5, day, step_index, variant_id, currency, shard, sum(sessions), sum(sessions_with_accept), sum(impressions),
         sum(accepts), sum(declines), sum(downsell_impressions), sum(downsell_accepts), sum(revenue_cents), sum(refunded_cents), $1::timestamptz
  from deltas group by day, step_index, variant_id, currency, shard
  on conflict (funnel_id, day, step_index, variant_id, currency, shard) do update set
    sessions = funnel_daily_stats.sessions + excluded.sessions,
    sessions_with_accept = funnel_daily_stats.sessions_with_accept + excluded.sessions_with_accept,
    impressions = funnel_daily_stats.impressions + excluded.impressions,
    accepts = funnel_daily_stats.accepts + excluded.accepts,
    declines = funnel_daily_stats.declines + excluded.declines,
    downsell_impressions = funnel_daily_stats.downsell_impressions + excluded.downsell_impressions,
    downsell_accepts = funnel_daily_stats.downsell_accepts + excluded.downsell_accepts,
    revenue_cents = funnel_daily_stats.revenue_cents + excluded.revenue_cents,
    refunded_cents = funnel_daily_stats.refunded_cents + excluded.refunded_cents,
    updated_at = excluded.updated_at`;

/** The entry rows the hosted flow writes (one per original order that entered the funnel). */
const ENTRIES_SQL = `
  insert into funnel_entries (original_order_ref, session_id, funnel_id, funnel_version, created_at)
  select 'ord_fbench_' || g, 'ups_fbench_' || g, $5, 1, at from (${SESSIONS_SQL}) as s`;

async function seed(url, { funnelId, now, sessions, entries, log }) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const spacingS = (YEAR_DAYS * DAY) / 1000 / sessions;
  const timings = { countersMs: 0, entriesMs: 0, vacuumMs: 0 };
  try {
    for (let lo = 1; lo <= sessions; lo += BATCH) {
      const hi = Math.min(sessions, lo + BATCH - 1);
      const params = [new Date(now).toISOString(), spacingS, lo, hi, funnelId];
      let started = Date.now();
      await client.query(COUNTERS_SQL, params);
      timings.countersMs += Date.now() - started;
      if (lo <= entries) {
        started = Date.now();
        await client.query(ENTRIES_SQL, [...params.slice(0, 3), Math.min(hi, entries), funnelId]);
        timings.entriesMs += Date.now() - started;
      }
      log(`seeded sessions ${lo}–${hi} (counters ${(timings.countersMs / 1000).toFixed(1)} s, entries ${(timings.entriesMs / 1000).toFixed(1)} s so far)`);
    }
    const started = Date.now();
    // As autovacuum would after a bulk load: statistics, and the visibility map for index-only scans.
    await client.query("vacuum analyze funnel_daily_stats");
    await client.query("vacuum analyze funnel_entries");
    timings.vacuumMs = Date.now() - started;
    const { rows } = await client.query(
      `select (select count(*) from funnel_daily_stats where funnel_id = $1)::int as counter_rows,
              (select count(*) from funnel_entries where funnel_id = $1)::int as entry_rows,
              pg_total_relation_size('funnel_daily_stats') as counters_bytes, pg_total_relation_size('funnel_entries') as entries_bytes`,
      [funnelId],
    );
    return { ...timings, counterRows: rows[0].counter_rows, entryRows: rows[0].entry_rows, countersBytes: Number(rows[0].counters_bytes), entriesBytes: Number(rows[0].entries_bytes) };
  } finally {
    await client.end();
  }
}

/** The API's figures for variant A over `range` against a direct SQL sum of the counters: the benchmark must not time an empty answer. */
async function check(url, { baseUrl, cookie, funnelId, range, sessions }) {
  const response = await fetch(`${baseUrl}/api/admin/funnels/${funnelId}/stats?from=${range.from}&to=${range.to}`, { headers: { cookie } });
  if (!response.ok) throw new Error(`stats answered ${response.status}: ${await response.text()}`);
  const answer = await response.json();
  const variant = answer.steps.find((s) => s.stepIndex === 0)?.variants.find((v) => v.variantId === "var_a");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let expected;
  try {
    const { rows } = await client.query(
      `select sum(impressions)::float8 as impressions, sum(accepts)::float8 as accepts, sum(declines)::float8 as declines,
              sum(downsell_accepts)::float8 as "downsellAccepts", sum(revenue_cents)::float8 as "grossRevenue", sum(refunded_cents)::float8 as refunded
       from funnel_daily_stats where funnel_id = $1 and step_index = 0 and variant_id = 'var_a' and currency = 'USD' and day between $2 and $3`,
      [funnelId, range.from, range.to],
    );
    expected = rows[0];
  } finally {
    await client.end();
  }
  const compared = Object.keys(expected).map((name) => ({ name, api: variant?.[name], sql: expected[name] }));
  // Every 10th session is in EUR: the answer is of USD, the currency with the most sessions.
  const usdSessions = sessions - Math.floor(sessions / 10);
  compared.push({ name: "sessions (funnel, USD)", api: answer.sessions, sql: usdSessions });
  // The split test's verdict (20 000 Monte Carlo draws, src/funnels/winner.ts) on the same counts, timed
  // alone in this process: with the SQL, what the route's time is made of.
  const { splitTestVerdicts } = await import(path.join(ROOT, "dist/funnels/winner.js"));
  const counts = answer.steps[0].variants.map((v) => ({ variantId: v.variantId, impressions: v.impressions, accepts: v.accepts, revenueCents: v.grossRevenue }));
  // One more impression each call: the same counts are answered from the verdict cache.
  const uncached = (i) => counts.map((c) => ({ ...c, impressions: c.impressions + i + 1 }));
  for (let i = 0; i < 3; i++) splitTestVerdicts(uncached(100 + i), 300);
  const started = performance.now();
  for (let i = 0; i < 20; i++) splitTestVerdicts(uncached(i), 300);
  const verdictMs = (performance.now() - started) / 20;
  const ok = answer.currency === "USD" && compared.every((c) => c.api === c.sql) && (variant?.impressions ?? 0) > 0;
  return { ok, verdictMs, currency: answer.currency, compared, winner: answer.steps[0]?.variants.map((v) => `${v.variantId} ${(v.probabilityBestTakeRate * 100).toFixed(1)} %${v.winner ? " (winner)" : ""}`).join(", ") };
}

/** The statement the stats route sends (funnelStatsRows in src/funnels/store.ts), timed alone: 20 runs, p50 and max in ms. */
const STATS_SQL = `
  select step_index, variant_id, currency, coalesce(sum(sessions), 0)::float8, coalesce(sum(sessions_with_accept), 0)::float8, coalesce(sum(impressions), 0)::float8,
         coalesce(sum(accepts), 0)::float8, coalesce(sum(declines), 0)::float8, coalesce(sum(downsell_impressions), 0)::float8, coalesce(sum(downsell_accepts), 0)::float8,
         coalesce(sum(revenue_cents), 0)::float8, coalesce(sum(refunded_cents), 0)::float8
  from funnel_daily_stats where funnel_id = $1 and day >= $2 and day <= $3 group by step_index, variant_id, currency`;

async function timeStatsSql(url, funnelId, range) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const times = [];
    let rows = 0;
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const result = await client.query({ name: "funnel_stats", text: STATS_SQL, values: [funnelId, range.from, range.to] });
      times.push(performance.now() - started);
      rows = result.rowCount;
    }
    const { rows: plan } = await client.query(`explain (analyze, buffers, format json) ${STATS_SQL}`, [funnelId, range.from, range.to]);
    const top = plan[0]["QUERY PLAN"][0];
    const scan = (node) => (node.Plans?.length ? scan(node.Plans[0]) : node);
    const leaf = scan(top.Plan);
    return { p50: median(times), max: Math.max(...times), groups: rows, rowsRead: leaf["Actual Rows"], scan: `${leaf["Node Type"]}${leaf["Index Name"] ? ` on ${leaf["Index Name"]}` : ""}` };
  } finally {
    await client.end();
  }
}

/**
 * Seeds `sessions` funnel sessions (entry rows for the first `entries` of them), checks the answer,
 * and measures the stats route over three periods. `durationS`: each load run's length.
 */
export async function benchFunnelStats({ sessions, entries = sessions, durationS = 10, log = console.log }) {
  return withOwnerOnFreshDatabase("bench_funnels", async ({ server, url, cookie }) => {
    const created = await fetch(`${server.baseUrl}/api/admin/funnels`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "sec-fetch-site": "same-origin" },
      body: JSON.stringify(FUNNEL),
    });
    if (!created.ok) throw new Error(`create funnel answered ${created.status}: ${await created.text()}`);
    const funnelId = (await created.json()).funnel.id;
    const now = Date.now();
    log(`seeding ${sessions} funnel sessions (${entries} entry rows) into ${funnelId}`);
    const seeded = await seed(url, { funnelId, now, sessions, entries: Math.min(entries, sessions), log });
    log(`seeded: ${seeded.counterRows} counter rows in ${(seeded.countersMs / 1000).toFixed(1)} s, ${seeded.entryRows} entries in ${(seeded.entriesMs / 1000).toFixed(1)} s, vacuum analyze ${(seeded.vacuumMs / 1000).toFixed(1)} s`);

    const day = (daysAgo) => new Date(now - daysAgo * DAY).toISOString().slice(0, 10);
    const ranges = [
      { label: "whole year (366 days)", from: day(YEAR_DAYS), to: day(0) },
      { label: "one month (31 days)", from: day(200), to: day(170) },
      { label: "one day", from: day(100), to: day(100) },
    ];
    const correct = await check(url, { baseUrl: server.baseUrl, cookie, funnelId, range: ranges[0], sessions });
    log(`answer check (variant var_a, whole year, USD): ${correct.ok ? "equal to the SQL sum" : "DIFFERENT"}: ${JSON.stringify(correct.compared)}`);
    if (!correct.ok) throw new Error("The stats answer differs from the seeded counters: not measuring it.");

    const rows = [];
    for (const range of ranges) {
      const urlPath = `/api/admin/funnels/${funnelId}/stats?from=${range.from}&to=${range.to}`;
      const sqlAlone = await timeStatsSql(url, funnelId, range);
      const single = await sequential(server.baseUrl, urlPath, cookie);
      const load = await autocannon({ url: server.baseUrl + urlPath, connections: 10, duration: durationS, headers: { cookie } });
      rows.push({ ...range, sql: sqlAlone, single, rps: load.requests.average, p50: load.latency.p50, p99: load.latency.p99, non2xx: load.non2xx, errors: load.errors });
      log(`${range.label}: the SQL alone p50 ${sqlAlone.p50.toFixed(1)} ms (${sqlAlone.rowsRead} counter rows read, ${sqlAlone.scan}); one at a time p50 ${single.p50.toFixed(1)} ms (max ${single.max.toFixed(1)}), under load ${load.requests.average.toFixed(0)} req/s p50 ${load.latency.p50} ms p99 ${load.latency.p99} ms, non-2xx ${load.non2xx}`);
    }
    return { sessions, entries: seeded.entryRows, seeded, correct, rows, durationS, date: new Date(now).toISOString(), machine: machine(), loadAtStart: null };
  });
}

/** The Markdown table of a run (docs/benchmarks-funnels.md, and the `funnels` leg of docs/benchmarks.md). */
export function funnelStatsTable(result) {
  return `| period | counter rows read | the SQL alone p50 ms | one at a time p50 ms | max ms | under load req/s | p50 ms | p99 ms | non-2xx / errors |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${result.rows.map((r) => `| ${r.label} (\`from=${r.from}&to=${r.to}\`) | ${r.sql.rowsRead.toLocaleString("en-US")} | ${r.sql.p50.toFixed(1)} | ${r.single.p50.toFixed(1)} | ${r.single.max.toFixed(1)} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} / ${r.errors} |`).join("\n")}`;
}

function writePage(result, { command, loadAtStart, note }) {
  const { seeded } = result;
  const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
  const entriesLine =
    result.entries === result.sessions
      ? `one \`funnel_entries\` row per session (${result.entries.toLocaleString("en-US")} rows, ${mb(seeded.entriesBytes)}, ${(seeded.entriesMs / 1000).toFixed(1)} s)`
      : `**\`funnel_entries\` rows for ${result.entries.toLocaleString("en-US")} of the sessions only** (${mb(seeded.entriesBytes)}, ${(seeded.entriesMs / 1000).toFixed(1)} s): the counters are those of all ${result.sessions.toLocaleString("en-US")}, and the stats query reads only the counters`;
  writeFileSync(
    "docs/benchmarks-funnels.md",
    `# Benchmark: funnel stats at ${result.sessions.toLocaleString("en-US")} sessions

Generated by \`${command}\` on ${result.date} (${result.machine}; load average at the start ${loadAtStart}).
Do not edit by hand.
${note ? `\n${note}\n` : ""}
One live two-step funnel (created through \`POST /api/admin/funnels\`): step 0 a split test of two variants
(\`var_a\` 19.00, \`var_b\` 24.00, each with a 9.00 downsell), step 1 one offer (\`var_c\` 15.00). Seeded on
PostgreSQL with \`INSERT … SELECT generate_series\` in batches of ${BATCH.toLocaleString("en-US")} sessions, spread evenly over the
365 days before the run: the per-day counters the stats query reads (\`funnel_daily_stats\`, added to with
\`ON CONFLICT … DO UPDATE\` as the service does: ${seeded.counterRows.toLocaleString("en-US")} rows, ${mb(seeded.countersBytes)}, ${(seeded.countersMs / 1000).toFixed(1)} s), and
${entriesLine}; then \`VACUUM ANALYZE\` (${(seeded.vacuumMs / 1000).toFixed(1)} s). The upsell sessions, orders and
offer results behind them are not seeded: the stats route never reads them. The sessions (see
\`SESSIONS_SQL\` in \`bench/funnel-stats.mjs\`): every 10th in EUR, the rest USD; take rate 12 % (A) and
15 % (B); 10 % leave without answering, the others decline and see the downsell (20 % take it); step 1
is shown to those who answered step 0 (8 % take it); 3 % and 2.5 % of the accepts are refunded.

**The answer is checked before it is timed**: over the whole year, variant \`var_a\`'s figures in the API's
answer (USD, the currency with the most sessions) against a direct SQL sum of its counter rows, and the
funnel's USD sessions against the number seeded: ${result.correct.ok ? "all equal" : "**DIFFERENT**"}.

| figure | API | SQL / seeded |
|---|---:|---:|
${result.correct.compared.map((c) => `| ${c.name} | ${c.api?.toLocaleString("en-US")} | ${c.sql?.toLocaleString("en-US")} |`).join("\n")}

Probability to be best on take rate (step 0): ${result.correct.winner}.

What one answer costs besides the SQL: the split test's verdict (\`splitTestVerdicts\`, 20 000 Monte Carlo
draws per two-variant step, \`src/funnels/winner.ts\`) took ${result.correct.verdictMs.toFixed(1)} ms per call on these counts, timed alone
in the benchmark's process. It does not grow with the sessions either, but it is most of a short period's time.

"The SQL alone": the statement the route sends (\`funnelStatsRows\`, \`src/funnels/store.ts\`) through \`pg\`, 20 runs,
with the counter rows it read and its scan from \`EXPLAIN ANALYZE\`. Then
\`GET /api/admin/funnels/<id>/stats?from=&to=\` as the brand's owner. "One at a time": 20 sequential
requests, the latency one person waits (HTTP, session check, the funnel, the counters' sum, the
20 000-draw Monte Carlo of the split test). "Under load": 10 connections for ${result.durationS} s (autocannon).

${funnelStatsTable(result)}

Why the number of sessions does not matter: the query reads the counter rows of one funnel and
period by the primary key's prefix (funnel, day), at most days × (steps' variants + 1) × currencies × 8 shards rows
(here at most ${(366 * 4 * 2 * 8).toLocaleString("en-US")} for a year), whatever the number of sessions (docs/funnels.md "Stats").
`,
  );
}

async function main() {
  process.chdir(ROOT);
  const { values: args } = parseArgs({
    options: { sessions: { type: "string", default: String(FULL_SCALE) }, entries: { type: "string" }, "no-build": { type: "boolean", default: false }, note: { type: "string" } },
  });
  const sessions = Number(args.sessions);
  const entries = args.entries ? Number(args.entries) : sessions;
  const log = (...parts) => console.log(`[bench:funnels ${new Date().toISOString().slice(11, 19)}]`, ...parts);
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(" ");
  if (!args["no-build"]) spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  const result = await benchFunnelStats({ sessions, entries, log });
  const flags = [sessions === FULL_SCALE ? "" : `--sessions ${sessions}`, args.entries ? `--entries ${entries}` : ""].filter(Boolean).join(" ");
  writePage(result, { command: `npm run bench:funnels${flags ? ` -- ${flags}` : ""}`, loadAtStart, note: args.note });
  log("wrote docs/benchmarks-funnels.md");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
