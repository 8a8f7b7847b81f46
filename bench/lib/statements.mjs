// pg_stat_statements for the bench tools (flow-statements.mjs, complete-growth.mjs): whether the
// server loads it, and the statements of one database by total execution time.
const LOAD_HINT = "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements', then restart PostgreSQL";

/** True when the server loads pg_stat_statements (the extension is then created); otherwise says how to. */
export async function statementsAvailable(admin) {
  const { rows } = await admin.query("select 1 from pg_settings where name = 'shared_preload_libraries' and setting like '%pg_stat_statements%'");
  if (!rows.length) {
    console.error(`pg_stat_statements is not loaded (${LOAD_HINT}): figures only`);
    return false;
  }
  await admin.query("create extension if not exists pg_stat_statements");
  return true;
}

export const resetStatements = (admin) => admin.query("select pg_stat_statements_reset()");

/** The `limit` statements of `database` with the most execution time since the last reset. */
export async function topStatements(admin, database, limit) {
  const { rows } = await admin.query(
    `select calls, round(total_exec_time::numeric, 1) as "total ms", round((total_exec_time / calls)::numeric, 3) as "ms per call",
            round((shared_blks_hit + shared_blks_read)::numeric / calls, 1) as "blocks per call", round(wal_records::numeric / calls, 1) as "WAL records per call",
            left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as statement
     from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = $1 order by total_exec_time desc limit $2`,
    [database, limit],
  );
  return rows;
}
