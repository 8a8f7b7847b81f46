// The real process, as `npm start` runs it: zero-configuration start on an empty DATA_DIR with a
// demo checkout end to end, the refusals to start, and a graceful SIGTERM. Needs `npm run build`
// (npm test builds first).
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migratedDataDir, runToExit, startServer } from "../support/process.js";

async function post(baseUrl: string, url: string, body: unknown) {
  const res = await fetch(baseUrl + url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe("the service process", () => {
  it("starts with no configuration on an empty DATA_DIR and runs a demo checkout end to end", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "svc-"));
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      expect(server.output()).toContain("CHECKOUT_TOKEN_SECRET was not set");
      // The start-up says where the product is (PUBLIC_BASE_URL) and where to go next.
      expect(server.output()).toMatch(/open http:\/\/[^ ]+: next http:\/\/[^ ]+\/login .*\/admin .*\/docs/);
      expect(existsSync(path.join(dataDir, "secrets.json"))).toBe(true);
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(health.status).toBe(200);

      const generated = await post(server.baseUrl, "/api/token/generate", { orderInfo: { total: 4999, currency: "USD", productName: "Starter kit" } });
      expect(generated.status).toBe(200);
      const { token, payload } = generated.body;

      const init = await post(server.baseUrl, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
      expect(init.status).toBe(200);
      expect(init.body).toMatchObject({ success: true, provider: "vault_gateway_b" });

      const paid = await post(server.baseUrl, "/api/providers/vault_gateway_b/process-payment", {
        orderId: payload.orderId,
        amount: 4999,
        currency: "USD",
        cardNumber: "4242424242424242",
        cardExpMonth: "12",
        cardExpYear: "2030",
        cardCvv: "123",
      });
      expect(paid.status).toBe(200);

      const completed = await post(server.baseUrl, "/api/checkout/complete", {
        orderId: payload.orderId,
        transactionId: paid.body.transactionId,
        provider: "vault_gateway_b",
        customerEmail: "ada@example.com",
        customerName: "Ada Lovelace",
        amount: 4999,
        currency: "USD",
      });
      expect(completed.status).toBe(200);
      expect(completed.body).toMatchObject({ success: true, orderId: payload.orderId, transactionId: paid.body.transactionId, provider: "vault_gateway_b" });
      expect(completed.body.paymentMethodToken).toBe(paid.body.paymentMethodToken);
      expect(server.output()).not.toContain("4242424242424242");
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
    expect(server.output()).toContain("shutting down");
  });

  it("keeps its generated secrets across restarts", async () => {
    // The first start on an empty DATA_DIR is the test above; this one needs no initdb.
    const dataDir = await migratedDataDir("svc-");
    const first = await startServer({ DATA_DIR: dataDir });
    const generated = await post(first.baseUrl, "/api/token/generate", {});
    await first.stop();
    const second = await startServer({ DATA_DIR: dataDir });
    try {
      const init = await post(second.baseUrl, "/api/checkout/initialize", { token: generated.body.token, provider: "intent_gateway" });
      expect(init.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it("refuses to start on PostgreSQL without CHECKOUT_TOKEN_SECRET, saying why", async () => {
    const result = await runToExit({ DATABASE_URL: "postgres://127.0.0.1:5432/test" });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("Refusing to start: CHECKOUT_TOKEN_SECRET must be set");
  });

  it("refuses a token secret shorter than 32 characters", async () => {
    const result = await runToExit({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: "too-short" });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("CHECKOUT_TOKEN_SECRET must be at least 32 characters");
  });

  it("refuses a previous token secret shorter than 32 characters", async () => {
    const result = await runToExit({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: "n".repeat(32), CHECKOUT_TOKEN_SECRET_PREVIOUS: "too-short" });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("CHECKOUT_TOKEN_SECRET_PREVIOUS (secret 1) must be at least 32 characters");
  });
});
