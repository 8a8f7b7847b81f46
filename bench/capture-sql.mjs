// Prints the SQL statements one initialize, payment, complete, upsell create-session, accept and decline send, as the built service
// (dist/) runs them on PostgreSQL, and the checkout page's pay (POST /api/checkout/pay, issue 34) of
// another initialized order: `pay` (the provider endpoint) and `checkoutPay` are the same card payment
// by the two routes. Re-run it whenever the checkout code changes:
//
//   npx tsc -p tsconfig.build.json && node bench/capture-sql.mjs        (--json for the raw capture)
//
// (`npm run build` builds dist/ too.) --summary prints only the statement count of each step.
//
// The runner calls captureStatements() before the replica scenarios, so the replicas always run
// what the current code sends. How: the service is started with bench/lib/sql-tap.mjs preloaded,
// which records every query the pg driver sends; one whole checkout runs first (start-up and
// first-use queries), then a second one is recorded step by step.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { decodeJwt } from "jose";
import { SERVICE_PATHS, UPSELL_OFFERS, completeBody, createSessionBody, initializeBody, newOrder, paymentBody, postJson, signCheckoutToken, PROVIDER } from "./lib/checkout-flow.mjs";
import { startNodeServer, sleep } from "./lib/proc.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Polling workers (outbox, mail retries) claim rows this way; they are not part of a request.
const BACKGROUND = /for update skip locked/i;

function readTap(file) {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

/** Waits until the service sent nothing for 300 ms (at most 10 s): background work of earlier steps is done. */
async function settle(tapFile) {
  const deadline = Date.now() + 10_000;
  let count = readTap(tapFile).length;
  while (Date.now() < deadline) {
    await sleep(300);
    const now = readTap(tapFile).length;
    if (now === count) return;
    count = now;
  }
}

/** Runs `call` and returns its result with the statements the service sent meanwhile. */
async function recordStep(tapFile, call) {
  const before = readTap(tapFile).length;
  const startedAt = Date.now();
  const request = call.body;
  const response = await call.run();
  // The tap writes when the driver answers, which is before the HTTP response leaves; a short
  // pause still lets a statement sent after the reply (none should be) show up as "after".
  await sleep(50);
  const all = readTap(tapFile).slice(before);
  return {
    startedAt,
    request,
    response,
    statements: all.filter((s) => !BACKGROUND.test(s.text)),
    background: all.filter((s) => BACKGROUND.test(s.text)).map((s) => s.text),
  };
}

/** Starts the service on a new database on `serverUrl`, records one checkout, drops the database. */
export async function captureStatements({ serverUrl, workDir }) {
  const name = `bench_capture_${process.pid}_${Date.now()}`;
  const url = await createDatabase(serverUrl, name);
  const tapFile = path.join(workDir, "sql-tap.jsonl");
  writeFileSync(tapFile, "");
  const server = await startNodeServer({
    script: path.join(ROOT, "dist/main.js"),
    nodeArgs: ["--import", pathToFileURL(path.join(ROOT, "bench/lib/sql-tap.mjs")).href],
    env: { ...serviceEnv({ url, dataDir: workDir }), SQL_TAP_FILE: tapFile },
    logFile: path.join(workDir, "capture-server.log"),
  });
  try {
    const base = server.baseUrl;
    const checkout = async (record) => {
      const order = newOrder();
      const token = await signCheckoutToken(order, TOKEN_SECRET);
      const steps = {};
      // `refused`: the step is expected to answer an error (a declined card), recorded as its response.
      const step = async (stepName, body, pathName, refused = false) => {
        const send = () => postJson(base, pathName, body);
        const call = { body, run: refused ? () => send().catch((error) => ({ status: error.status, error: error.message })) : send };
        steps[stepName] = record ? await recordStep(tapFile, call) : { response: await call.run() };
        return steps[stepName].response;
      };
      const initialized = await step("initialize", initializeBody(order, token), SERVICE_PATHS.initialize);
      const paid = await step("pay", paymentBody(order), SERVICE_PATHS.pay);
      const completed = await step("complete", completeBody(order, initialized, paid), SERVICE_PATHS.complete);
      // The upsell steps as the benchmark drives them: accept and decline each on a fresh session.
      const origin = { orderId: order.orderId, email: order.email, paymentMethodToken: completed.paymentMethodToken };
      const session = await step("createSession", createSessionBody(origin), SERVICE_PATHS.createSession);
      await step("accept", { sessionId: session.sessionId, offerId: UPSELL_OFFERS[0].id }, SERVICE_PATHS.accept);
      const other = await postJson(base, SERVICE_PATHS.createSession, createSessionBody(origin));
      await step("decline", { sessionId: other.sessionId, offerId: UPSELL_OFFERS[0].id }, SERVICE_PATHS.decline);
      // The checkout page's pay of an initialized order, without cascade (the card is approved at the
      // first provider): `checkoutPay` with a token naming the provider (no routing), `checkoutPayRouted`
      // with one that does not (the brand's routing rules are read; none saved: the default route);
      // `checkoutPayDeclined`: the named provider declines the card (a hard decline ends the pay, 402).
      for (const [stepName, namesProvider, cardNumber] of [
        ["checkoutPay", true, undefined],
        ["checkoutPayRouted", false, undefined],
        ["checkoutPayDeclined", true, "4000000000000002"],
      ]) {
        // The receipt mailer's batch (a transaction not marked as background) must not fall into the
        // step; initialize comes after the wait, as on the page, so the provider settings are cached.
        if (record) await settle(tapFile);
        const payOrder = newOrder();
        const payToken = await signCheckoutToken(payOrder, TOKEN_SECRET, { namesProvider });
        await postJson(base, SERVICE_PATHS.initialize, initializeBody(payOrder, payToken));
        const { amount: _amount, currency: _currency, ...payBody } = paymentBody(payOrder);
        if (cardNumber) payBody.cardNumber = cardNumber;
        await step(stepName, payBody, SERVICE_PATHS.checkoutPay, Boolean(cardNumber));
      }
      if (record) steps.initialize.claims = decodeJwt(token);
      return steps;
    };
    await checkout(false);
    const steps = await checkout(true);
    return { capturedAt: new Date().toISOString(), provider: PROVIDER, tokenSecret: TOKEN_SECRET, steps };
  } finally {
    await server.stop();
    await dropDatabase(serverUrl, name);
  }
}

/** One readable block per step: statement text, parameters, how many rows came back. */
export function describeCapture(capture) {
  const lines = [];
  for (const [stepName, step] of Object.entries(capture.steps)) {
    lines.push(`-- ${stepName}: ${step.statements.length} statements`);
    for (const s of step.statements) {
      lines.push(`${s.text};`);
      if (s.params.length) lines.push(`   -- params: ${JSON.stringify(s.params).slice(0, 300)}`);
      lines.push(`   -- client ${s.client}, ${s.rowCount ?? 0} row(s)${s.error ? `, ERROR ${s.error}` : ""}`);
    }
    if (step.background.length) lines.push(`-- (left out, background workers: ${step.background.length} statements)`);
    lines.push("");
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serverUrl = await findPostgres();
  if (!serverUrl) {
    console.error("No PostgreSQL answers (set DATABASE_URL): the capture needs the pg driver.");
    process.exit(1);
  }
  const workDir = mkdtempSync(path.join(tmpdir(), "bench-capture-"));
  try {
    const capture = await captureStatements({ serverUrl, workDir });
    if (process.argv.includes("--json")) console.log(JSON.stringify(capture, null, 2));
    else if (process.argv.includes("--summary")) for (const [stepName, step] of Object.entries(capture.steps)) console.log(`${stepName}: ${step.statements.length} statements`);
    else console.log(describeCapture(capture));
  } catch (error) {
    console.error(error.message);
    process.exitCode = 1;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
