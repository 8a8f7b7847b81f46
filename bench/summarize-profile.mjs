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
