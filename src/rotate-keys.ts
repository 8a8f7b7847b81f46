// `npm run rotate-keys`: re-seals every value sealed with an ENCRYPTION_KEY_PREVIOUS key (or in the old
// format that names no key) with ENCRYPTION_KEY, in the same environment as the service, while it
// serves. Prints one line per table; exits 0 when every value is under the current key, 1 when some
// open with no configured key (listed by row) or on any error. Run it again at will: it is idempotent.
// docs/operations.md "Rotating ENCRYPTION_KEY".
import { ConfigError, loadConfig } from "./config/index.js";
import { openDatabase } from "./db/client.js";
import { resealAll } from "./db/sealed-values.js";
import { keyId } from "./lib/crypto.js";

try {
  const config = loadConfig();
  const database = await openDatabase(config.database, config.dataDir);
  try {
    const current = config.encryptionKeyring[0]!;
    process.stdout.write(`rotate-keys: sealing with key ${keyId(current)}; previous keys: ${config.encryptionKeyring.slice(1).map(keyId).join(", ") || "none"}\n`);
    const unopened: string[] = [];
    const counts = await resealAll(database.db, config.encryptionKeyring, (table, outcome, id) => {
      if (outcome === "undecryptable") unopened.push(`${table} ${id}`);
    });
    let total = 0;
    for (const [table, c] of counts) {
      process.stdout.write(`${table}: ${c.resealed} re-sealed, ${c.current} already current, ${c.undecryptable} undecryptable${c.changed ? `, ${c.changed} changed meanwhile (run again)` : ""}\n`);
      total += c.undecryptable + c.changed;
    }
    if (unopened.length > 0) {
      process.stdout.write(`undecryptable (no configured key opens them; keep or restore their key in ENCRYPTION_KEY_PREVIOUS):\n${unopened.map((u) => `  ${u}\n`).join("")}`);
    }
    process.exitCode = total === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
} catch (error) {
  const reason = error instanceof ConfigError ? error.message : String((error as Error).stack ?? error);
  process.stderr.write(`rotate-keys failed: ${reason}\n`);
  process.exit(1);
}
