// A fresh PostgreSQL database per run, next to the one DATABASE_URL names (or the local server's).
import pg from "pg";

export const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

/** The server to use, or null when none answers (the PostgreSQL leg is then skipped). */
export async function findPostgres() {
  const url = process.env.DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : LOCAL_POSTGRES;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function admin(serverUrl, sql) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates `name` on the server of `serverUrl` and returns its URL. */
export async function createDatabase(serverUrl, name) {
  await admin(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(serverUrl, name) {
  // WITH (FORCE) ends connections a killed server may have left behind (PostgreSQL 13+).
  await admin(serverUrl, `drop database if exists "${name}" with (force)`);
}
