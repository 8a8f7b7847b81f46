// docs/benchmarks.md from one run's results. Every figure in the file comes from `results`; the
// only hand-written text is the method and the targets.
import { writeFileSync } from "node:fs";
import { FLOW_TARGET } from "../cluster.mjs";
import { CLOSED_LOOP_TARGET, OVERLOAD_TARGET } from "../overload.mjs";
import { funnelStatsTable } from "../funnel-stats.mjs";
import { routingSection } from "../routing.mjs";
import { approvalStatsTable } from "../approval-stats.mjs";
import { FLOW_STEPS } from "./flow.mjs";

// Another process using more than this much of a core during a measured run makes its figures not final.
const LOADED_CORE_PCT = 15;
const TARGETS = {
  postgres: { ratio: 0.85, p99: 50 },
  pglite: { ratio: 0.7, p99: null },
};
const REFERENCE_REPLICA = { initialize: 2600, complete: 1900, accept: 1850 };
// The measured steps, in order, with their table labels. The targets apply to the first three.
const STEPS = { initialize: "initialize", complete: "complete", accept: "upsell accept", createSession: "upsell create-session", decline: "upsell decline" };
const TARGET_STEPS = ["initialize", "complete", "accept"];

const fmt = (value, digits = 0) => (value === null || value === undefined || Number.isNaN(value) ? "–" : Number(value).toFixed(digits));
const pct = (value) => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(value < 0.1 ? 1 : 0)}%`);
const ratio = (a, b) => (a?.median && b?.median && b.median.rps ? a.median.rps / b.median.rps : null);

function row(label, result, { bare, replica }) {
  if (!result) return null;
  if (result.skipped) return `| ${label} | not measured: ${result.skipped.replace(/\|/g, "\\|").replace(/\n/g, " ")} ||||||||`;
  const m = result.median;
  const loaded = result.runs.some((r) => r.othersCorePct > LOADED_CORE_PCT) ? " ⚠" : "";
  return [
    `| ${label}${loaded}`,
    fmt(m.rps),
    fmt(m.p50),
    fmt(m.p99),
    fmt(m.serverCpuMsPerReq, 3),
    m.postgresCpuMsPerReq === null ? "–" : fmt(m.postgresCpuMsPerReq, 3),
    `${m.non2xx} / ${m.errors + m.timeouts}`,
    bare ? pct(ratio(result, bare)) : "–",
    replica ? pct(ratio(result, replica)) : "–",
    `${fmt(median(result.runs.map((r) => r.othersCorePct)))}% |`,
  ].join(" | ");
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
}

function engineTable(name, engine, bare) {
  const { service, replica } = engine;
  return [
    `### ${name === "postgres" ? "PostgreSQL" : "PGlite (embedded)"}`,
    "",
    "| scenario | req/s | p50 ms | p99 ms | server CPU ms/req | postgres CPU ms/req | non-2xx / errors | vs bare Fastify | vs its replica | other load (% of a core) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    row("bare Fastify `GET /`", bare, {}),
    ...Object.entries(STEPS).map(([step, label]) => row(`${label} (service)`, service[step], { bare, replica: replica[step] })),
    ...Object.entries(STEPS).map(([step, label]) => row(`${label} (raw-SQL replica)`, replica[step], { bare })),
    "",
    ...engine.repeatsNote,
  ]
    .filter((line) => line !== null)
    .join("\n");
}

function repeatsNote(engine) {
  const lines = [];
  for (const [kind, group] of Object.entries({ service: engine.service, replica: engine.replica })) {
    for (const result of Object.values(group)) {
      if (!result?.runs || result.runs.length < 2) continue;
      lines.push(`- ${kind} ${result.name}: ${result.runs.map((r) => `${fmt(r.rps)} req/s (p99 ${r.p99} ms)`).join(", ")}`);
    }
  }
  return lines.length ? ["Repeats (req/s):", "", ...lines, ""] : [];
}

function targets(results) {
  const lines = ["| engine | check | target | measured | met |", "|---|---|---|---|---|"];
  for (const [name, engine] of Object.entries(results.engines)) {
    const target = TARGETS[name];
    for (const step of TARGET_STEPS) {
      const r = ratio(engine.service[step], engine.replica[step]);
      lines.push(`| ${name} | ${step} vs raw-SQL replica | ≥ ${pct(target.ratio)} | ${pct(r)} | ${r === null ? "–" : r >= target.ratio ? "yes" : "**no**"} |`);
      const p99 = engine.service[step]?.median?.p99;
      if (target.p99) lines.push(`| ${name} | ${step} p99 | < ${target.p99} ms | ${fmt(p99)} ms | ${p99 === undefined ? "–" : p99 < target.p99 ? "yes" : "**no**"} |`);
    }
    if (name === "postgres") {
      for (const step of TARGET_STEPS) {
        lines.push(`| ${name} | replica ${step} vs the issue's reference machine | ~${REFERENCE_REPLICA[step]}/s | ${fmt(engine.replica[step]?.median?.rps)}/s | (calibration, not a target) |`);
      }
    }
  }
  return lines.join("\n");
}

/** Where the CPU went, from the per-process figures: which part was saturated in each scenario. */
function limits(results) {
  const cores = Number(results.machine.nproc) || 1;
  const out = [];
  for (const [name, engine] of Object.entries(results.engines)) {
    for (const step of Object.keys(STEPS)) {
      const service = engine.service[step]?.median;
      const replica = engine.replica[step]?.median;
      if (!service) continue;
      const parts = [
        `service process ${fmt(service.serverCorePct)}% of a core`,
        service.postgresCorePct !== null ? `PostgreSQL ${fmt(service.postgresCorePct)}%` : null,
        `load generator ${fmt(service.loadGeneratorCorePct)}%`,
        `other processes ${fmt(service.othersCorePct)}%`,
      ].filter(Boolean);
      const total = service.serverCorePct + (service.postgresCorePct ?? 0) + service.loadGeneratorCorePct + service.othersCorePct;
      let verdict;
      if (service.serverCorePct > 85) verdict = "the service's JavaScript thread was saturated: throughput is bounded by its CPU per request";
      else if (total > cores * 100 * 0.9) verdict = `the machine's ${cores} cores were saturated (the service shares them with the load generator${name === "postgres" ? ", PostgreSQL" : ""} and other processes)`;
      else verdict = `no process was saturated (service below 85% of a core, machine below 90%): requests spent their time waiting, ${name === "postgres" ? "on database round trips and the pool of 10 connections" : "on PGlite's single connection (one statement at a time)"}`;
      let line = `- **${name} ${step}**: ${parts.join(", ")} (of ${cores * 100}%) → ${verdict}.`;
      if (service.othersCorePct > LOADED_CORE_PCT) line += " Other processes loaded the machine during this run: not final.";
      if (replica) {
        const extra = service.serverCpuMsPerReq - replica.serverCpuMsPerReq;
        line += ` The service spent ${fmt(service.serverCpuMsPerReq, 3)} ms of its own CPU per request, the replica ${fmt(replica.serverCpuMsPerReq, 3)} ms: ${fmt(extra, 3)} ms per request is our layer (validation, rate limit, idempotency check, logging, Drizzle query building, response serialization)`;
        if (service.postgresCpuMsPerReq !== null && replica.postgresCpuMsPerReq !== null) {
          line += `; PostgreSQL spent ${fmt(service.postgresCpuMsPerReq, 3)} vs ${fmt(replica.postgresCpuMsPerReq, 3)} ms (unnamed vs prepared statements, same SQL)`;
        }
        line += ".";
      }
      out.push(line);
    }
  }
  return out.length ? out.join("\n") : "Nothing measured yet: the checkout endpoints did not answer (see the tables).";
}

const CLUSTER_SCENARIOS = { initialize: "initialize", complete: "complete", flow: "full flow, as fast as it goes", flowAtTarget: "full flow at 300 flows/s" };
// Two instances "lose no throughput" within the run-to-run noise of this machine.
const SCALE_TOLERANCE = 0.95;

/** The overload leg (bench/overload.mjs): capacity, then open-loop arrivals at 0.8×, 1.5× and 2× of it. */
function overloadSection(results) {
  const overload = results.overload;
  if (!overload) return "Not run in this run (`--engines` without `overload`, or no PostgreSQL; see Notes).";
  if (overload.skipped) return `Not measured: ${overload.skipped}`;
  const ms = (v) => (v === null || v === undefined ? "-" : v.toFixed(0));
  const t = OVERLOAD_TARGET;
  const lines = [
    `Capacity: ${overload.capacityFlowsPerS.toFixed(0)} flows/s (closed loop, 50 connections, request p99 ${ms(overload.capacityP99)} ms, failed steps ${overload.capacityFailedAt ?? "{}"}). Then buyers arrive open-loop at each multiple of it; a refusal is 503 OVERLOADED (docs/operations.md "Overload").`,
    "",
    "| arrivals | offered flows/s | goodput flows/s | goodput / capacity | refused share | refused p99 ms | refused after step 1 | admitted p50 ms | admitted p99 ms | admitted failed |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...overload.rates.map((r) =>
      `| ${r.factor}× | ${r.offeredFlowsPerS.toFixed(0)} | ${r.goodputFlowsPerS.toFixed(0)} | ${(r.goodputShare * 100).toFixed(0)}% | ${(r.refusedShare * 100).toFixed(1)}% | ${ms(r.refusedP99)} | ${r.refusedLater} | ${ms(r.admittedP50)} | ${ms(r.admittedP99)} | ${r.failedAdmitted} |`,
    ),
    "",
    `Targets (issue 20), at 1.5× and 2×: goodput at least ${t.goodputShare * 100}% of capacity, admitted p99 under ${t.admittedP99} ms, refusals within ${t.refusedP99} ms. At 0.8×: nothing refused.`,
  ];
  if (overload.closedLoops?.length) {
    lines.push(
      "",
      "Closed loops (bounded loads): each size against a fresh service with admission on (as configured) and off (`ADMISSION_QUEUE_TARGET_MS=0`, `ADMISSION_*_POOL_WAIT_MS=0`), alternating which goes first; refusals from the service's `/metrics`.",
      "",
      "| connections | admission | flows/s | request p50 ms | request p99 ms | p99 / off | refused new / started | queue stood (intervals) | load average (1 min, before → after) |",
      "|---:|---|---:|---:|---:|---:|---|---:|---|",
      ...overload.closedLoops.map(
        (r) =>
          `| ${r.connections} | ${r.admission} | ${r.flowsPerS.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.p99VsOff ? r.p99VsOff.toFixed(2) : "-"} | ${r.refusedNew} / ${r.refusedStarted} | ${r.standingIntervals} | ${r.loadAverage.map((v) => v.toFixed(1)).join(" → ")} |`,
      ),
      "",
      `Targets (issue 35): no refusal, request p99 within ${CLOSED_LOOP_TARGET.p99VsOff}× of admission off.`,
    );
  }
  return lines.join("\n");
}

/** The funnels leg (bench/funnel-stats.mjs at a small scale; the full ten million: docs/benchmarks-funnels.md). */
function funnelsSection(results) {
  const funnels = results.funnels;
  if (!funnels) return "Not run in this run (`--engines` without `funnels`, or no PostgreSQL; see Notes).";
  if (funnels.skipped) return `Not measured: ${funnels.skipped}`;
  return [
    `\`GET /api/admin/funnels/<id>/stats\` as the brand's owner over ${funnels.sessions.toLocaleString("en-US")} funnel sessions seeded over a year (${funnels.seeded.counterRows.toLocaleString("en-US")} per-day counter rows); the answer's figures for one variant equal a direct SQL sum of its counters: ${funnels.correct.ok ? "yes" : "**no**"}. 20 requests one at a time, then 10 connections for ${funnels.durationS} s. The same at ten million sessions: \`npm run bench:funnels\`, \`docs/benchmarks-funnels.md\`.`,
    "",
    funnelStatsTable(funnels),
  ].join("\n");
}

/** The approvals leg (bench/approval-stats.mjs: a year of 10 000 attempts a day; its own page: docs/benchmarks-approvals.md). */
function approvalsSection(results) {
  const approvals = results.approvals;
  if (!approvals) return "Not run in this run (`--engines` without `approvals`, or no PostgreSQL; see Notes).";
  if (approvals.skipped) return `Not measured: ${approvals.skipped}`;
  return [
    `\`GET /api/admin/analytics/approvals\` as the brand's owner over ${(approvals.perDay * 365).toLocaleString("en-US")} provider attempts (365 days × ${approvals.perDay.toLocaleString("en-US")}) seeded as the day counters (${approvals.seeded.rows.toLocaleString("en-US")} rows as seeded, ${approvals.fold.rows.toLocaleString("en-US")} once folded); the answer's totals equal the seeded attempts: ${approvals.correct.ok ? "yes" : "**no**"}. Target (issue 34): under 50 ms at a year. The same with its own page: \`npm run bench:approvals\`, \`docs/benchmarks-approvals.md\`.`,
    "",
    approvalStatsTable(approvals),
  ].join("\n");
}

/** The one-vs-two-instances leg (bench/cluster.mjs): tables, targets and capacity per core. */
function clusterSection(results) {
  const cluster = results.cluster;
  if (!cluster) return "Not run in this run (`--engines` without `cluster`, or no PostgreSQL or Redis; see Notes).";
  const bare = results.bare?.median?.rps;
  const lines = [
    "| scenario | instances | req/s | flows/s | p50 ms | p99 ms | flow p99 ms | server CPU ms/req | postgres CPU ms/req | redis CPU ms/req | non-2xx / errors | vs bare Fastify |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [key, label] of Object.entries(CLUSTER_SCENARIOS)) {
    for (const [count, byScenario] of Object.entries(cluster)) {
      const result = byScenario[key];
      if (!result) continue;
      if (result.skipped) {
        lines.push(`| ${label} | ${count} | not measured: ${result.skipped.replace(/\|/g, "\\|").replace(/\n/g, " ")} ||||||||||`);
        continue;
      }
      const m = result.median;
      const loaded = result.runs.some((r) => r.othersCorePct > LOADED_CORE_PCT) ? " ⚠" : "";
      lines.push(
        [
          `| ${label}${loaded}`,
          count,
          fmt(m.rps),
          m.flowsPerS === undefined ? "–" : fmt(m.flowsPerS),
          fmt(m.p50),
          fmt(m.p99),
          m.flowP99 === undefined ? "–" : fmt(m.flowP99),
          fmt(m.serverCpuMsPerReq, 3),
          fmt(m.postgresCpuMsPerReq, 3),
          fmt(m.redisCpuMsPerReq, 3),
          `${m.non2xx} / ${m.errors + m.timeouts}`,
          `${bare ? pct(m.rps / bare) : "–"} |`,
        ].join(" | "),
      );
    }
  }
  const failed = Object.entries(cluster).flatMap(([count, byScenario]) =>
    Object.entries(byScenario).flatMap(([key, result]) => (result.runs ?? []).filter((r) => r.failedFlows).map((r) => `- ${CLUSTER_SCENARIOS[key]}, ${count} instance(s): failed flows by step and status: \`${r.failedAt}\``)),
  );
  if (failed.length) lines.push("", ...failed);
  return [lines.join("\n"), "", "### Targets", "", clusterTargets(cluster), "", "### Capacity per core", "", capacity(cluster)].join("\n");
}

function clusterTargets(cluster) {
  const one = cluster[1] ?? {};
  const two = cluster[2] ?? {};
  const lines = ["| check | target | measured | met |", "|---|---|---|---|"];
  const yes = (ok) => (ok === null ? "–" : ok ? "yes" : "**no**");
  for (const key of ["initialize", "complete", "flow"]) {
    const r = one[key]?.median && two[key]?.median ? two[key].median.rps / one[key].median.rps : null;
    lines.push(`| ${CLUSTER_SCENARIOS[key]}: 2 instances vs 1, throughput | no loss (≥ ${pct(SCALE_TOLERANCE)}: run-to-run noise) | ${pct(r)} | ${yes(r === null ? null : r >= SCALE_TOLERANCE)} |`);
    const failures = (m) => (m ? m.non2xx + m.errors + m.timeouts : null);
    const f1 = failures(one[key]?.median);
    const f2 = failures(two[key]?.median);
    lines.push(`| ${CLUSTER_SCENARIOS[key]}: 2 instances add no errors | ${f1 ?? "–"} (1 instance) | ${f2 ?? "–"} | ${yes(f1 === null || f2 === null ? null : f2 <= f1)} |`);
  }
  const cpu = one.complete?.median?.serverCpuMsPerReq;
  lines.push(`| server CPU per completion (1 instance) | ≤ 0.5 ms | ${fmt(cpu, 3)} ms | ${yes(cpu === undefined ? null : cpu <= 0.5)} |`);
  const fixed = one.flowAtTarget?.median;
  if (fixed) {
    const ok = fixed.flowsPerS >= FLOW_RATE * 0.98 && fixed.p99 < 100 && fixed.failedFlows === 0;
    lines.push(`| full flow at ${FLOW_RATE}/s on 1 instance: rate held, request p99 < 100 ms, no failures | ${FLOW_RATE} flows/s, < 100 ms, 0 | ${fmt(fixed.flowsPerS)} flows/s, p99 ${fmt(fixed.p99)} ms (whole flow ${fmt(fixed.flowP99)} ms), ${fixed.failedFlows} failed | ${yes(ok)} |`);
  }
  return lines.join("\n");
}

const FLOW_RATE = FLOW_TARGET.flowsPerS;
const FLOW_REQUESTS = FLOW_STEPS.length;

/** What one core of the service, and one of PostgreSQL, would carry at the measured CPU per request. */
function capacity(cluster) {
  const lines = [
    "CPU milliseconds per request scale with cores where throughput on this machine cannot (the service, PostgreSQL, Redis and the load generator share its cores). One core busy at 100% for a second is 1000 ms, so a core carries 1000 / (CPU ms per request) requests a second; a flow is 5 requests (initialize, card payment, complete, upsell create-session, accept). Plan for 70% of that, to keep latency low.",
    "",
    "| scenario | instances | service CPU ms per request | per service core | PostgreSQL CPU ms per request | per PostgreSQL core |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const key of ["initialize", "complete", "flow"]) {
    for (const [count, byScenario] of Object.entries(cluster)) {
      const m = byScenario[key]?.median;
      if (!m) continue;
      const unit = key === "flow" ? FLOW_REQUESTS : 1;
      const per = (ms) => (ms ? `${fmt(1000 / (ms * unit))} ${key === "flow" ? "flows" : "requests"}/s` : "–");
      lines.push(`| ${CLUSTER_SCENARIOS[key]} | ${count} | ${fmt(m.serverCpuMsPerReq, 3)} | ${per(m.serverCpuMsPerReq)} | ${fmt(m.postgresCpuMsPerReq, 3)} | ${per(m.postgresCpuMsPerReq)} |`);
    }
  }
  return lines.join("\n");
}

function statements(results) {
  if (!results.capture) return "No capture in this run (see Notes).";
  const lines = [`Captured ${results.capture.source === "recorded in this run" ? "in this run" : `from ${results.capture.source}`}, provider \`${results.capture.provider}\`:`, ""];
  for (const [step, list] of Object.entries(results.capture.steps)) {
    const role = step === "pay" ? ", the card payment at the provider endpoint: the replica runs it only to prepare checkouts for its complete" : "";
    lines.push(`**${step}** (${list.length} statements${role})`, "", "```sql", ...list.map((text) => `${text.replace(/\s+/g, " ").trim()};`), "```", "");
  }
  return lines.join("\n");
}

export function writeReport(file, results) {
  const { machine, options } = results;
  const loaded = Object.values(results.engines)
    .flatMap((e) => [...Object.values(e.service), ...Object.values(e.replica)])
    .concat(results.bare ? [results.bare] : [])
    .some((r) => r?.runs?.some((run) => run.othersCorePct > LOADED_CORE_PCT));
  const quick = options.quick || options.repeats < 3 || options.durationS < 10;
  const status = [];
  if (loaded) status.push(`**Not final: other processes used more than ${LOADED_CORE_PCT}% of a core during some measured runs (marked ⚠).** Re-run on an idle machine for figures to quote.`);
  if (quick) status.push(`**Not final: a quick run (${options.repeats} repeat(s) of ${options.durationS} s).** The method below asks for 3 repeats of 10 s.`);

  const text = `# Benchmarks

Generated by \`${results.command}\` on ${machine.date} (commit ${machine.git}${machine.gitDirty ? `, ${machine.gitDirty} uncommitted change(s) under src/` : ""}).
Do not edit by hand: every figure below comes from that run (raw figures in \`bench/results/\`, git-ignored).

${status.join("\n\n")}

## Machine

- CPUs (\`nproc\`): ${machine.nproc}, ${machine.cpu}
- Node.js ${machine.node}; load average at start: ${machine.loadAverage}
- Memory (\`free -h\`):

\`\`\`
${machine.free}
\`\`\`

Other benchmarks, each with its own command and page: the audit-log listing over a million records
(\`npm run bench:audit\`, \`docs/benchmarks-audit.md\`), the orders list over a million orders
(\`npm run bench:orders\`, \`docs/benchmarks-orders.md\`), the funnel stats query at ten million funnel
sessions (\`npm run bench:funnels\`, \`docs/benchmarks-funnels.md\`), the approval analytics query at a year
of 10 000 attempts a day (\`npm run bench:approvals\`, \`docs/benchmarks-approvals.md\`), webhook delivery throughput
(\`node bench/webhooks.mjs\`, \`docs/webhooks.md\`) and success-rate routing in a simulation where one provider's
approvals drop and recover (\`npm run bench:routing-sim\`, \`docs/benchmarks-routing.md\`).

The load generator (autocannon, in the runner process) and PostgreSQL run on the same machine as the
server under test and share its cores; their CPU use is in the last section.

## Method

- Each scenario: ${options.connections} connections, ${options.warmupS} s warm-up (discarded), then ${options.durationS} s measured, ${options.repeats} repeat(s); the tables show the median of each column over the repeats (non-2xx and errors are summed).
- Every checkout request does real work: initialize gets a new order with its own signed token (HS256, \`CHECKOUT_TOKEN_SECRET\` set explicitly), complete gets a checkout that was initialized and paid (\`/api/providers/<provider>/process-payment\`) through the API before the run. Upsell: create-session opens a session with two offers on one of 40 checkouts completed before the run (several sessions share an original order); accept and decline each answer the first offer of a session of their own, created through the API before the run, so accept charges the saved method once per request. Pools are sized from the rate seen so far (warm-up, previous repeat), and a run ends when its pool is used up (autocannon \`amount\`), so nothing is replayed.
- The service runs as \`node dist/main.js\` with \`LOG_LEVEL=info\` (one log line per request, written to a file), \`RATE_LIMIT_ANONYMOUS\`/\`RATE_LIMIT_AUTHENTICATED\` = 100000000, admission control off in the per-route scenarios (\`ADMISSION_QUEUE_TARGET_MS=0\`, \`ADMISSION_*_POOL_WAIT_MS=0\`: they run beyond capacity on purpose; the overload and cluster legs keep the defaults), a fresh \`DATA_DIR\` (PGlite) or a fresh database (PostgreSQL, dropped after).
- server CPU ms/req: utime + stime of the server process from \`/proc/<pid>/stat\` over the measured run, divided by its requests. postgres CPU ms/req: the same summed over the PostgreSQL processes working for the benchmark database (its backends, autovacuum on it, postmaster, checkpointer, WAL and background writers; other databases' backends are left out).
- **Ceilings.** *bare Fastify*: \`bench/bare-server.mjs\`, one route answering \`{ ok: true }\`, no logger. *raw-SQL replica*: \`bench/replica-server.mjs\`, bare Fastify running exactly the SQL statements each of our measured endpoints sends (below), through \`pg\` with named prepared statements and a pool of 10 (the service's size), plus the JWT verification (HS256 with node:crypto, as the service does it) for initialize; on PGlite the same statements through PGlite.
- "other load" is the machine's busy CPU time (\`/proc/stat\`) minus the server, PostgreSQL and the load generator, in % of one core: other developers' tests, builds. Runs where it exceeds ${LOADED_CORE_PCT}% are marked ⚠.

## Results

${Object.entries(results.engines)
  .map(([name, engine]) => engineTable(name, { ...engine, repeatsNote: repeatsNote(engine) }, results.bare))
  .join("\n\n")}

## One instance and two instances (PostgreSQL + Redis)

\`bench/cluster.mjs\`: the service as 1, then 2 processes (\`node dist/main.js\`, each on its own port, on one
fresh PostgreSQL database and the local Redis, rate limits counted in Redis), the load spread over the
instances' URLs by autocannon (round-robin per connection, as a simple load balancer). Each scenario as
above (${options.connections} connections, medians of ${options.repeats} run(s)); server CPU is the sum over the
instances. *Full flow*: every connection runs whole buyer journeys back to back: initialize (new signed
token), card payment at \`/api/providers/<provider>/process-payment\`, complete, upsell create-session
with two offers, accept of the first; each answer feeds the next request. req/s, p50 and p99 are per
request; *flow p99* is a whole journey, first request sent to last answer. *At 300 flows/s*: the same
journeys arriving open-loop, a new buyer every 1/300 s whatever the latency, for ${options.durationS} s;
it shows whether that rate is held and at what latency.

${clusterSection(results)}

## Overload (one instance, PostgreSQL)

${overloadSection(results)}

## Funnel stats (PostgreSQL)

${funnelsSection(results)}

## Routing decisions

${routingSection(results.routing)}

## Approval analytics (PostgreSQL)

${approvalsSection(results)}

## Targets

From the issues: on PostgreSQL, initialize, complete and upsell accept at ≥ 85% of their raw-SQL replicas with p99 < 50 ms; on PGlite ≥ 70%.
The issues' reference machine ran the replicas at ~${REFERENCE_REPLICA.initialize} initializations/s, ~${REFERENCE_REPLICA.complete} completions/s and ~${REFERENCE_REPLICA.accept} accepts/s on PostgreSQL.

${targets(results)}

## What limits it

Measured CPU during the runs, as a share of one core (the machine has ${machine.nproc}):

${limits(results)}

## Statements the replicas run

\`bench/capture-sql.mjs\` starts the built service on a fresh PostgreSQL database with \`bench/lib/sql-tap.mjs\`
preloaded (it wraps \`pg\`'s \`Client.prototype.query\` and records each statement, its parameters and first
result row), runs one whole checkout to get past first-use queries, then records a second one step by step.
Statements of polling workers (\`FOR UPDATE SKIP LOCKED\`) are left out. The runner records a fresh capture at
every run, so the replicas follow the code; run \`node bench/capture-sql.mjs\` to see them with parameters.

${statements(results)}
${results.notes.length ? `## Notes\n\n${results.notes.map((n) => `- ${n}`).join("\n")}\n` : ""}`;
  writeFileSync(file, text);
}
