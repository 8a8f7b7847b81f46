// The raw-SQL replica of our checkout hot paths: the lower bound of what initialize and complete can
// cost on this database. It runs exactly the statements the service sent for one initialize, one
// payment and one complete (recorded by bench/capture-sql.mjs, file in REPLICA_CAPTURE), in the same
// order, on the same connections (transactions stay transactions), through `pg` with named prepared
// statements and a pool of 10 like the service's, plus the HS256 token verification (node:crypto, as the
// service does it) for initialize. Nothing else: no validation, no rate limit, no logging, bare Fastify.
//
// Parameter values are those of the recorded request, re-pointed at the current one: a recorded
// value that came from the request (orderId, email, token hash) takes the current request's value,
// one read from an earlier statement's result takes the current result's value, a generated id gets
// a fresh random id of the same shape, a timestamp moves by the time elapsed since the recording.
import { createHash, createHmac, createSecretKey, randomInt, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import Fastify from "fastify";
import pg from "pg";

const capture = JSON.parse(readFileSync(process.env.REPLICA_CAPTURE, "utf8"));
const secretKey = createSecretKey(Buffer.from(process.env.CHECKOUT_TOKEN_SECRET, "utf8"));
const POOL_SIZE = 10; // src/db/client.ts opens its pg pool with max 10.

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
// A random identifier: newId's `chk_…` (prefixes, then base64url that may hold no digit at all), or
// any long run of letters mixed with digits (hex digests, provider ids).
const GENERATED = /^(?:[a-z]{2,8}_)+[A-Za-z0-9_-]{16,}$|^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_\-|.]{12,}$/;
const MIN_MAPPED = 6; // shorter values (currency, provider ids) are constants, not identities

const sha256 = (value) => createHash("sha256").update(value).digest("hex");

/** A fresh value of the same shape: prefixes `vgb_txn_` kept, then digit for digit, hex for hex, letter for letter. */
function freshLike(value) {
  const prefix = value.match(/^(?:[a-z]{2,8}_)+/)?.[0] ?? "";
  let out = prefix;
  const random = (chars) => chars[randomInt(chars.length)];
  for (const c of value.slice(prefix.length)) {
    if (c >= "0" && c <= "9") out += random("0123456789");
    else if (c >= "a" && c <= "f") out += random("abcdef");
    else if (c >= "a" && c <= "z") out += random("abcdefghijklmnopqrstuvwxyz");
    else if (c >= "A" && c <= "Z") out += random("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    else out += c;
  }
  return out;
}

/** Recorded value → current value, for one request. */
class Substitutions {
  constructor(shiftMs) {
    this.pairs = new Map();
    this.shiftMs = shiftMs;
  }
  add(recorded, current) {
    if (typeof recorded === "string" && typeof current === "string" && recorded.length >= MIN_MAPPED && recorded !== current) this.pairs.set(recorded, current);
  }
  /** Walks two values of the same shape (the recorded request and the current one). */
  addParallel(recorded, current) {
    if (recorded && current && typeof recorded === "object" && typeof current === "object") {
      for (const key of Object.keys(recorded)) this.addParallel(recorded[key], current[key]);
    } else {
      this.add(recorded, current);
    }
  }
  /** What a result row read now stands for the recorded one (ids a later statement reuses). */
  addRow(recorded, current) {
    if (!recorded || !current) return;
    for (const [key, value] of Object.entries(recorded)) {
      const now = current[key] instanceof Date ? current[key].toISOString() : current[key];
      this.add(value, now);
    }
  }
  string(value) {
    const exact = this.pairs.get(value);
    if (exact !== undefined) return exact;
    // A JSON document (jsonb parameter, rows for jsonb_populate_recordset): re-point each value in it.
    if (/^[[{]/.test(value)) {
      try {
        return JSON.stringify(this.value(JSON.parse(value)));
      } catch {
        // not JSON after all: handled as text below
      }
    }
    if (ISO_TIME.test(value)) return new Date(Date.parse(value) + this.shiftMs).toISOString();
    let out = value;
    // Values inside larger strings: JSON documents (jsonb parameters), `a|b` payment method tokens.
    for (const [recorded, current] of this.pairs) if (out.includes(recorded)) out = out.replaceAll(recorded, current);
    if (out === value && GENERATED.test(value)) {
      out = freshLike(value);
      this.pairs.set(value, out);
    }
    return out;
  }
  value(value) {
    if (typeof value === "string") return this.string(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v)]));
    return value;
  }
}

// Statements whose row count differed from the recording (an id that was not re-pointed would make
// an UPDATE hit nothing and the replica look cheaper than it is). The runner reads GET /replay-check.
const mismatches = {};
function checkRows(s, result) {
  const rows = result.rows?.length || result.rowCount || result.affectedRows || 0;
  if (rows !== (s.rowCount ?? 0)) mismatches[s.name] = (mismatches[s.name] ?? 0) + 1;
}

const isBegin = (text) => /^\s*(begin|start transaction)/i.test(text);
const isEnd = (text) => /^\s*(commit|rollback)/i.test(text);

/** Runs the recorded statements of one step on PostgreSQL, connection structure preserved. */
function postgresEngine(url) {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  pool.on("error", () => {});
  return async function replay(step, subs) {
    const open = new Map(); // recorded client id -> checked-out client holding a transaction
    try {
      for (const s of step.statements) {
        const values = subs.value(s.params);
        let result;
        if (isBegin(s.text)) {
          const client = await pool.connect();
          open.set(s.client, client);
          result = await client.query(s.text);
        } else {
          const client = open.get(s.client);
          // Named: parsed and planned once per connection, then only bound and executed.
          const query = isEnd(s.text) ? s.text : { name: s.name, text: s.text, values };
          result = client ? await client.query(query) : await pool.query(query);
          if (client && isEnd(s.text)) {
            client.release();
            open.delete(s.client);
          }
        }
        checkRows(s, result);
        subs.addRow(s.row, result.rows[0]);
      }
    } finally {
      for (const client of open.values()) {
        await client.query("rollback").catch(() => {});
        client.release(true);
      }
    }
  };
}

/** The same on PGlite (one connection): a recorded transaction runs inside PGlite's transaction(). */
async function pgliteEngine(dataDir) {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite(path.join(dataDir, "pglite"));
  await db.waitReady;
  const run = async (runner, s, subs) => {
    const result = await runner.query(s.text, subs.value(s.params));
    checkRows(s, result);
    subs.addRow(s.row, result.rows[0]);
  };
  return async function replay(step, subs) {
    const statements = step.statements;
    for (let i = 0; i < statements.length; i++) {
      if (!isBegin(statements[i].text)) {
        await run(db, statements[i], subs);
        continue;
      }
      let end = i + 1;
      while (end < statements.length && !isEnd(statements[end].text)) end++;
      const inner = statements.slice(i + 1, end);
      await db.transaction(async (tx) => {
        for (const s of inner) await run(tx, s, subs);
      });
      i = end;
    }
  };
}

const steps = capture.steps;
for (const [name, step] of Object.entries(steps)) step.statements.forEach((s, i) => (s.name = `${name}_${i}`));
const replay = process.env.DATABASE_URL ? postgresEngine(process.env.DATABASE_URL) : await pgliteEngine(process.env.DATA_DIR);

async function handle(stepName, body, extra) {
  const step = steps[stepName];
  const subs = new Substitutions(Date.now() - step.startedAt);
  subs.addParallel(step.request, body);
  extra?.(step, subs);
  await replay(step, subs);
  return subs.value(step.response);
}

const app = Fastify({ logger: false });
/** HS256 verification as the service does it (src/checkout/token.ts: node:crypto, cached key). */
function verifyToken(token) {
  const [header, payload, signature] = token.split(".");
  const expected = createHmac("sha256", secretKey).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error("bad signature");
  if (JSON.parse(Buffer.from(header, "base64url").toString()).alg !== "HS256") throw new Error("bad alg");
  return JSON.parse(Buffer.from(payload, "base64url").toString());
}

app.post("/initialize", async (request) => {
  const payload = verifyToken(request.body.token);
  return handle("initialize", request.body, (step, subs) => {
    subs.addParallel(step.claims, payload);
    // The service keeps the token's digest, not the token.
    subs.add(sha256(step.request.token), sha256(request.body.token));
  });
});
app.post("/pay", async (request) => handle("pay", request.body));
app.post("/complete", async (request) => handle("complete", request.body));
app.post("/upsell/create-session", async (request) => handle("createSession", request.body));
app.post("/upsell/accept", async (request) => handle("accept", request.body));
app.post("/upsell/decline", async (request) => handle("decline", request.body));
app.get("/replay-check", async () => ({ mismatches }));

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
console.log(`listening on ${address}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
