// What the config reads for the PostgreSQL pool and what openDatabase falls back to (tests).

/** The PostgreSQL pool and what every connection may hold it for (docs/configuration.md). */
export interface PoolSettings {
  /** Connections per process (DATABASE_POOL_SIZE). */
  size: number;
  /** statement_timeout of every connection in ms (DATABASE_STATEMENT_TIMEOUT_MS); 0: none. */
  statementTimeoutMs: number;
  /** idle_in_transaction_session_timeout of every connection in ms (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS); 0: none. */
  idleInTransactionTimeoutMs: number;
}

// Both timeouts sit above the 10-s provider timeout: a charge runs inside a transaction (upsell
// accept, CRM recording), and a statement may wait on a row lock held across such a charge.
export const POOL_DEFAULTS: PoolSettings = { size: 10, statementTimeoutMs: 15_000, idleInTransactionTimeoutMs: 15_000 };
