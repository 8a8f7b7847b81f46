// The merchant guide's runnable example (docs/examples/first-order.mjs, issue 33 item 7: a newcomer
// following only the merchant docs meets no failing example), run as a merchant runs it: a child
// process with a test key against the service listening on a port.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { registerOwner } from "../support/admin.js";
import { buildTestApp, type TestApp } from "../support/app.js";
import { createApiKey } from "../support/merchant.js";

const run = promisify(execFile);
let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await t?.close();
});

it("runs the guide's first order in test mode: checkout, payment, verified order, refund, events", async () => {
  const owner = await registerOwner(t, "Guide shop");
  const { secret } = await createApiKey(t, owner.session, { name: "guide" });
  expect(secret).toMatch(/^sk_test_/);
  const { stdout } = await run(process.execPath, ["docs/examples/first-order.mjs"], { env: { PATH: process.env.PATH ?? "", CHECKOUT_URL: baseUrl, CHECKOUT_API_KEY: secret } });
  expect(stdout).toMatch(/checkout chk_\S+ \(livemode false\): send the buyer to http/);
  expect(stdout).toMatch(/order order-\d+: paid, 4999 USD, metadata \{"cartId":"cart-42"\}/);
  expect(stdout).toMatch(/refund \S+: succeeded, 1000 USD/);
  expect(stdout).toMatch(/events: (order\.confirmed|refund\.succeeded) evt_\S+, (order\.confirmed|refund\.succeeded) evt_\S+/);
});

it("says what is missing without a key", async () => {
  await expect(run(process.execPath, ["docs/examples/first-order.mjs"], { env: { PATH: process.env.PATH ?? "", CHECKOUT_URL: baseUrl } })).rejects.toThrow(/Set CHECKOUT_API_KEY/);
});
