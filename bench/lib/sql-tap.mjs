// Preloaded into the service (`node --import ./bench/lib/sql-tap.mjs dist/main.js`) by
// bench/capture-sql.mjs: records every statement the pg driver sends, with its parameters and the
// first row of its result, one JSON line each, to SQL_TAP_FILE. Wrapping Client.prototype.query
// sees everything Drizzle sends (pool queries and transactions alike) without touching src/.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.SQL_TAP_FILE;
// The same CommonJS module instance dist/ imports, so patching its prototype reaches the app's pool.
const pg = createRequire(import.meta.url)("pg");
const original = pg.Client.prototype.query;
let clients = 0;

function write(entry) {
  appendFileSync(file, JSON.stringify(entry) + "\n");
}

function firstRow(result) {
  const row = result?.rows?.[0];
  if (!row) return null;
  if (!Array.isArray(row)) return row;
  // Drizzle reads some results in array mode: name the values by their fields.
  return Object.fromEntries(result.fields.map((field, i) => [field.name, row[i]]));
}

pg.Client.prototype.query = function tappedQuery(config, values, callback) {
  if (typeof values === "function") {
    callback = values;
    values = undefined;
  }
  // Cursors and other submittables are passed through untouched (Drizzle does not use them).
  if (config && typeof config.submit === "function") return original.call(this, config, values, callback);
  this.benchClientId ??= ++clients;
  const entry = {
    at: Date.now(),
    client: this.benchClientId,
    text: typeof config === "string" ? config : config.text,
    // Set for a named prepared statement (planned once per connection); unnamed ones are planned on every run.
    name: (typeof config === "object" && config.name) || undefined,
    params: (typeof config === "object" && config.values) || values || [],
  };
  const done = (error, result) =>
    write({ ...entry, ms: Date.now() - entry.at, rowCount: result?.rowCount ?? null, row: firstRow(result), error: error ? String(error.message) : undefined });
  if (typeof callback === "function") {
    return original.call(this, config, values, (error, result) => {
      done(error, result);
      callback(error, result);
    });
  }
  return original.call(this, config, values).then(
    (result) => (done(null, result), result),
    (error) => {
      done(error);
      throw error;
    },
  );
};
