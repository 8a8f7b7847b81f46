// The fixture of the cluster tests that count rows: a cluster for the describe block that asks for
// it, and a client on the cluster's database. Not in cluster.ts, which `npm run soak` loads without vitest.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { startCluster, type Cluster, type ClusterOptions } from "./cluster.js";

export interface ClusterSuite {
  cluster: Cluster;
  db: pg.Client;
}

/** Starts the cluster and connects the client before the block's tests, ends both after them. Its members are set once the tests run. */
export function clusterSuite(options: ClusterOptions): ClusterSuite {
  const suite = {} as ClusterSuite;
  beforeAll(async () => {
    suite.cluster = await startCluster(options);
    suite.db = new pg.Client({ connectionString: suite.cluster.databaseUrl });
    await suite.db.connect();
  });
  afterAll(async () => {
    await suite.db?.end();
    await suite.cluster?.stop();
  });
  return suite;
}
