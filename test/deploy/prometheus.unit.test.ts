// deploy/prometheus/alerts.yml (issue 21 item 8): valid for Prometheus (`promtool check rules`), its
// alerts fire and stay quiet as alerts.test.yml says (`promtool test rules`), and every metric it
// names is one the service declares (src/metrics/metrics.ts, src/http/admission.ts, or prom-client's
// Node.js defaults), so a renamed metric cannot leave an alert that never fires. docs/operations.md
// "Alerts" lists exactly its rules (issue 31 item 6: the doc named four the file lacked). promtool is
// Debian's `prometheus` package (.ci/run installs it).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { collectDefaultMetrics, Registry } from "prom-client";
import { describe, expect, it } from "vitest";

const promtool = spawnSync("promtool", ["--version"]).status === 0;
if (!promtool) console.warn("test/deploy/prometheus: promtool not found (apt-get install prometheus): its two checks are skipped");

const rules = readFileSync("deploy/prometheus/alerts.yml", "utf8");

describe("Prometheus alert rules", () => {
  it.skipIf(!promtool)("pass promtool check rules and promtool test rules", () => {
    const check = spawnSync("promtool", ["check", "rules", "deploy/prometheus/alerts.yml"], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const test = spawnSync("promtool", ["test", "rules", "alerts.test.yml"], { cwd: "deploy/prometheus", encoding: "utf8" });
    expect(test.status, test.stdout + test.stderr).toBe(0);
  });

  it("name only metrics the service declares", async () => {
    // The registry's metrics are declared there and by admission control (src/http/admission.ts).
    const source = ["src/metrics/metrics.ts", "src/http/admission.ts"].map((file) => readFileSync(file, "utf8")).join("\n");
    const declared = new Set([...source.matchAll(/name: "([a-z_]+)"|(?:fromRead|perJob)\("([a-z_]+)"/g)].map((m) => m[1] ?? m[2]));
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    for (const metric of await defaults.getMetricsAsJSON()) declared.add(metric.name);
    const used = new Set([...rules.matchAll(/\b([a-z_]+)\{job="checkout"/g)].map((m) => m[1]!.replace(/_(count|bucket|sum)$/, "")));
    used.delete("up"); // Prometheus's own, per scrape target
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(declared, `${name} is not declared in src/metrics/metrics.ts`).toContain(name);
  });

  it("are the rules docs/operations.md \"Alerts\" lists, no more and no fewer", () => {
    const doc = readFileSync("docs/operations.md", "utf8");
    const section = doc.slice(doc.indexOf("\n## Alerts\n"), doc.indexOf("\n## ", doc.indexOf("\n## Alerts\n") + 1));
    const documented = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]).sort();
    const shipped = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]).sort();
    expect(shipped.length).toBeGreaterThan(10);
    expect(documented).toEqual(shipped);
    // The job alerts of issue 31 are among them.
    expect(shipped).toEqual(expect.arrayContaining(["CheckoutJobBacklog", "CheckoutJobFailing"]));
  });
});
