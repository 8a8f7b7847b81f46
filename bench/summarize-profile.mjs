// Summarises a V8 .cpuprofile (node --cpu-prof): top self-time functions and inclusive time per module.
// Usage: node bench/summarize-profile.mjs <file.cpuprofile>
import { readFileSync } from "node:fs";

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const timeByNode = new Map();
profile.samples.forEach((id, i) => timeByNode.set(id, (timeByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...timeByNode.values()].reduce((a, b) => a + b, 0);
const pct = (t) => `${((t / total) * 100).toFixed(1)}%`;

const self = new Map();
for (const [id, t] of timeByNode) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/")}:${lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + t);
}
console.log(`sampled ${(total / 1000).toFixed(0)} ms\n\nself time:`);
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${pct(t)}  ${k}`);

const moduleOf = (url) =>
  url.includes("node_modules/") ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, "$1") : url.includes("/dist/") ? url.replace(/.*\/dist\//, "dist/") : null;
const inclusive = new Map();
for (const [id, t] of timeByNode) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const m = moduleOf(nodes.get(cur).callFrame.url);
    if (m && !seen.has(m)) {
      seen.add(m);
      inclusive.set(m, (inclusive.get(m) ?? 0) + t);
    }
  }
}
console.log("\ninclusive time per module:");
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(t)}  ${k}`);

// Busy time (idle left out) by where it goes, for the per-route table in docs/performance.md. A native
// frame (no url) counts for the nearest caller that has one, except socket writes, counted apart: one
// per statement sent to PostgreSQL and one per response.
const CATEGORIES = [
  ["PostgreSQL driver", /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|buffer-writer)\//],
  ["Drizzle", /node_modules\/drizzle-orm\//],
  ["request log", /node_modules\/(pino|@pinojs\/[^/]+|sonic-boom|pino-std-serializers|fast-redact|thread-stream)\//],
  ["schemas (validation, serialization)", /node_modules\/(ajv|fast-json-stringify|@fastify\/(ajv-compiler|fast-json-stringify-compiler)|fast-uri|secure-json-parse)\//],
  ["Fastify and HTTP", /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify\/[^/]+)\/|node:_http|node:http/],
  ["our code", /\/dist\/|bench\/replica-server\.mjs/],
  ["Node.js", /^node:/],
];
// The profiler's own work (BENCH_PROFILE_DIR: building the profile when it stops) is not the server's.
const profilerAt = (id) => {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) if (/^node:inspector|profile-on-signal\.mjs/.test(nodes.get(cur).callFrame.url)) return true;
  return false;
};
const busy = new Map();
for (const [id, t] of timeByNode) {
  const leaf = nodes.get(id).callFrame;
  if (leaf.functionName === "(idle)" || profilerAt(id)) continue;
  let category = leaf.functionName === "(garbage collector)" ? "garbage collection" : null;
  let viaNet = false;
  for (let cur = id; !category && cur !== undefined; cur = parent.get(cur)) {
    const { url } = nodes.get(cur).callFrame;
    if (!url) continue;
    if (/^node:(net|internal\/stream_base_commons)/.test(url)) viaNet = true;
    if (viaNet && /^(writev|writeBuffer|write\w*String)$/.test(leaf.functionName)) category = "socket writes";
    else if (/^node:/.test(url)) continue;
    else category = CATEGORIES.find(([, re]) => re.test(url))?.[0] ?? "other";
  }
  category ??= leaf.functionName === "(program)" ? "V8 and native (program)" : viaNet && /^(writev|writeBuffer|write\w*String)$/.test(leaf.functionName) ? "socket writes" : "Node.js";
  busy.set(category, (busy.get(category) ?? 0) + t);
}
const busyTotal = [...busy.values()].reduce((a, b) => a + b, 0);
console.log(`\nbusy time (${(busyTotal / 1000).toFixed(0)} ms, idle left out) by where it goes:`);
for (const [k, t] of [...busy].sort((a, b) => b[1] - a[1])) console.log(`  ${((t / busyTotal) * 100).toFixed(1)}%  ${k}`);
