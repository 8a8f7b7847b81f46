// `npm run bench:routing`: what one routing decision costs (issue 34: "Routing costs under 0.05 ms per
// decision"). route() of dist/ (run `npx tsc -p tsconfig.build.json` first; the npm script does) over a
// brand's list of 20 rules of every kind (conditions on amount, currency, country, card brand, BIN
// range and country, product, funnel and buyer; provider, split and best_of targets; daily caps), for
// 10 000 varied orders with typed cards, counters answering from in-memory maps as the pay path's do.
// Three cases: the mixed orders, orders no rule takes (all 20 rules checked, then the default rule),
// and orders before the card is typed. Each: a warm-up, then 5 runs of 200 000 decisions; the median
// run's ms per decision. Prints the figures and writes the "Routing decisions" section of
// docs/benchmarks.md (bench/run.mjs writes the same section in a full run, its `routing` leg).
//
//   npm run bench:routing
//   npm run bench:routing -- --decisions 50000 --no-write
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ROUTING_TARGET_MS = 0.05;
const RULE_COUNT = 20;
const RUNS = 5;

const PROVIDERS = ["intent_gateway", "vault_gateway_a", "order_crm_a", "order_crm_b", "cart_gateway", "vault_gateway_b"];
const CARDS = ["4242424242424242", "5555555555554444", "378282246310005", "6011111111111117", "3530111333300000", "4000000000000002", "6200000000000005", "6759649826438453"];
const CURRENCIES = ["USD", "EUR", "GBP", "CAD", "JPY"];
const COUNTRIES = ["US", "DE", "FR", "GB", "CA", "JP", "BR", null];

/** 20 rules of every kind; the last ones take few orders, so most decisions check many rules. */
function twentyRules() {
  const [a, b, c, d, e, f] = PROVIDERS;
  const kinds = [
    { conditions: { currencies: ["JPY"], cardBrands: ["jcb"] }, target: { type: "provider", provider: a } },
    { conditions: { binRanges: [{ from: "62000000", to: "62999999" }], binCountries: ["CN"] }, target: { type: "provider", provider: b } },
    { conditions: { amountMin: 900_000 }, target: { type: "best_of", providers: [a, b, e], explorationPercent: 10 } },
    { conditions: { productIds: ["sku-vip-1", "sku-vip-2"], buyer: "returning" }, target: { type: "split", splits: [{ provider: b, weight: 80 }, { provider: f, weight: 20 }] } },
    { conditions: { funnelIds: ["fnl_summer"], countries: ["US"] }, target: { type: "provider", provider: e } },
    { conditions: { currencies: ["EUR"], countries: ["DE", "AT", "CH"], cardBrands: ["mastercard"] }, target: { type: "split", splits: [{ provider: b, weight: 50 }, { provider: f, weight: 50 }] }, caps: [{ provider: b, currency: "EUR", dailyAmount: 5_000_000 }] },
    { conditions: { binCountries: ["GB"], currencies: ["GBP"] }, target: { type: "best_of", providers: [c, d] } },
    { conditions: { cardBrands: ["amex"], amountMax: 10_000 }, target: { type: "provider", provider: a } },
    { conditions: { countries: ["BR", "MX", "AR"] }, target: { type: "split", splits: [{ provider: c, weight: 1 }, { provider: d, weight: 1 }] } },
    { conditions: { binRanges: [{ from: "400000", to: "400009" }, { from: "411111", to: "411111" }] }, target: { type: "provider", provider: f } },
  ];
  const rules = [];
  for (let i = 0; i < RULE_COUNT; i++) {
    const kind = kinds[i % kinds.length];
    // The second ten narrow the first ten with one more condition, so they rarely take an order first.
    const conditions = i < kinds.length ? kind.conditions : { ...kind.conditions, productIds: [`sku-rare-${i}`] };
    rules.push({ id: `rul_bench_${i}`, name: `Bench rule ${i}`, conditions, target: kind.target, ...(kind.caps ? { caps: kind.caps } : {}) });
  }
  // The catch-all last: every card order that reached it is split across two merchant accounts.
  rules[RULE_COUNT - 1] = { id: "rul_bench_all", name: "Everything else", conditions: { amountMin: 1 }, target: { type: "split", splits: [{ provider: b, weight: 60 }, { provider: f, weight: 40 }] }, caps: [{ provider: b, currency: "USD", dailyAmount: 100_000_000 }] };
  return rules;
}

function orders(cardFactsOf, count, { withCard = true, noneMatch = false } = {}) {
  const list = [];
  for (let i = 0; i < count; i++) {
    list.push({
      orderId: `ord_bench_${i}`,
      amountCents: noneMatch ? 0 : 500 + ((i * 7919) % 1_000_000),
      currency: noneMatch ? "CHF" : CURRENCIES[i % CURRENCIES.length],
      country: noneMatch ? "CH" : COUNTRIES[i % COUNTRIES.length],
      card: withCard ? cardFactsOf(noneMatch ? "6011111111111117" : CARDS[i % CARDS.length]) : null,
      productIds: [`sku-${i % 50}`],
      funnelId: !noneMatch && i % 10 === 0 ? "fnl_summer" : null,
      returningBuyer: i % 3 === 0,
      candidates: PROVIDERS,
    });
  }
  return list;
}

/** In-memory counters, as the pay path builds them once per request from what it read. */
function counters() {
  const volume = new Map(PROVIDERS.map((p, i) => [p, i * 1_000_000]));
  const rates = new Map(PROVIDERS.map((p, i) => [p, { rate: 0.6 + i * 0.05, attempts: 200 }]));
  return { dailyVolume: (provider) => volume.get(provider) ?? 0, successRate: (provider) => rates.get(provider) ?? null };
}

function measure(route, inputs, rules, counters, decisions) {
  let sink = 0;
  const once = (n) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += route(inputs[i % inputs.length], rules, counters).providers.length;
    return Number(process.hrtime.bigint() - started) / 1e6 / n;
  };
  once(Math.min(decisions, 50_000)); // warm-up: the JIT settles
  const runs = Array.from({ length: RUNS }, () => once(decisions)).sort((x, y) => x - y);
  if (sink < 0) console.log(sink);
  return { msPerDecision: runs[Math.floor(RUNS / 2)], bestMs: runs[0], worstMs: runs[RUNS - 1] };
}

/** The routing leg: ms per decision of each case. */
export async function benchRouting({ decisions = 200_000 } = {}) {
  const module = await import(pathToFileURL(path.join(ROOT, "dist/payments/routing/route.js")).href).catch((error) => {
    throw new Error(`dist/payments/routing/route.js is missing: run \`npx tsc -p tsconfig.build.json\` first (${error.message})`);
  });
  const { route, cardFactsOf } = module;
  const rules = twentyRules();
  const c = counters();
  const cases = [
    { name: "mixed orders, card typed", inputs: orders(cardFactsOf, 10_000) },
    { name: "no rule takes the order (20 rules checked, then the default)", inputs: orders(cardFactsOf, 10_000, { noneMatch: true }) },
    { name: "before the card is typed", inputs: orders(cardFactsOf, 10_000, { withCard: false }) },
  ];
  const results = cases.map(({ name, inputs }) => {
    const taken = new Map();
    for (const input of inputs.slice(0, 2000)) {
      const id = route(input, rules, c).ruleId ?? "default";
      taken.set(id, (taken.get(id) ?? 0) + 1);
    }
    return { name, rulesDeciding: taken.size, ...measure(route, inputs, rules, c, decisions) };
  });
  return { rules: rules.length, decisions, runs: RUNS, node: process.version, targetMs: ROUTING_TARGET_MS, cases: results };
}

/** The Markdown of the leg (docs/benchmarks.md "Routing decisions"). */
export function routingSection(routing) {
  if (!routing) return "Not run in this run (`--engines` without `routing`).";
  if (routing.skipped) return `Not measured: ${routing.skipped}`;
  const worst = Math.max(...routing.cases.map((c) => c.msPerDecision));
  return [
    `\`route()\` (src/payments/routing/route.ts, from dist/) with a brand's ${routing.rules} rules of every kind (each condition, provider, split and best_of targets, daily caps) over 10 000 varied orders; median of ${routing.runs} runs of ${routing.decisions.toLocaleString("en-US")} decisions each after a warm-up, Node.js ${routing.node}. \`npm run bench:routing\` measures it alone. Target (issue 34): under ${routing.targetMs} ms per decision: ${worst < routing.targetMs ? "met" : "**not met**"}.`,
    "",
    "| orders | rules deciding (of 2 000 orders) | ms per decision (median) | fastest run | slowest run |",
    "|---|---:|---:|---:|---:|",
    ...routing.cases.map((c) => `| ${c.name} | ${c.rulesDeciding} | ${c.msPerDecision.toFixed(5)} | ${c.bestMs.toFixed(5)} | ${c.worstMs.toFixed(5)} |`),
  ].join("\n");
}

/** Replaces the "## Routing decisions" section of docs/benchmarks.md (added before "## Targets" the first time). */
function writeSection(section) {
  const file = path.join(ROOT, "docs/benchmarks.md");
  const text = readFileSync(file, "utf8");
  const heading = "## Routing decisions";
  const block = `${heading}\n\n${section}\n\n`;
  const start = text.indexOf(`\n${heading}\n`) + 1;
  let next;
  if (start > 0) {
    const end = text.indexOf("\n## ", start + heading.length);
    next = text.slice(0, start) + block + (end >= 0 ? text.slice(end + 1) : "");
  } else {
    const targets = text.indexOf("\n## Targets\n") + 1;
    next = targets > 0 ? text.slice(0, targets) + block + text.slice(targets) : `${text.trimEnd()}\n\n${block}`;
  }
  writeFileSync(file, next);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { decisions: { type: "string", default: "200000" }, "no-write": { type: "boolean", default: false } } });
  const routing = await benchRouting({ decisions: Number(values.decisions) });
  for (const c of routing.cases) console.log(`${c.name}: ${c.msPerDecision.toFixed(5)} ms/decision (runs ${c.bestMs.toFixed(5)}–${c.worstMs.toFixed(5)}), ${c.rulesDeciding} rules deciding`);
  const section = routingSection(routing);
  if (!values["no-write"]) {
    writeSection(section);
    console.log("wrote the Routing decisions section of docs/benchmarks.md");
  }
  if (routing.cases.some((c) => c.msPerDecision >= ROUTING_TARGET_MS)) process.exitCode = 1;
}
