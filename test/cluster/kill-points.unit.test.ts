// SIGKILL at named points (before the provider call, after the provider charge, after commit before
// the response), then a retry of the same request on another instance → the original result, one
// charge, one order, one event. One iteration per point here; `npm run soak` runs 100 and more.
import { describe, expect, it } from "vitest";
import { clusterSkipReason } from "./cluster.js";
import { clusterSuite } from "./suite.js";
import { crashAndRetry, REQUEST_POINTS } from "./kill-points.js";

const skip = clusterSkipReason();
if (skip) console.warn(`test/cluster/kill-points: ${skip}`);

describe.skipIf(skip !== null)("SIGKILL at named points, then a retry", () => {
  const suite = clusterSuite({ instances: 1 });

  it.each(REQUEST_POINTS)("%s: the retry gets the original result, charged and recorded once", async (point) => {
    await expect(crashAndRetry(suite.cluster, 0, point, suite.db, `${point}-${Date.now()}`)).resolves.toMatchObject({ retryMs: expect.any(Number) });
  });
});
