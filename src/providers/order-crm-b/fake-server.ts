import { sendJson, startHttpFake, type FakeRequest } from "../fake-http.js";

/**
 * A fake of order_crm_b's order-import API at the network boundary (tests): `order/import` and
 * `campaign/query` with loginId/password. `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeOrderCrmB {
  baseUrl: string;
  loginId: string;
  password: string;
  requests: (FakeRequest & { form: Record<string, string> })[];
  failNext: "500" | "garbage" | null;
  close(): Promise<void>;
}

export async function startFakeOrderCrmB(loginId = "crm-b-login", password = "crm-b-password-5678"): Promise<FakeOrderCrmB> {
  let counter = 0;
  const fake: FakeOrderCrmB = { baseUrl: "", loginId, password, requests: [], failNext: null, close: async () => {} };
  const server = await startHttpFake((request, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    fake.requests.push({ ...request, form });
    if (fake.failNext) {
      const mode = fake.failNext;
      fake.failNext = null;
      if (mode === "500") return sendJson(response, 500, { result: "ERROR" });
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("maintenance");
    }
    if (form.loginId !== loginId || form.password !== password) return sendJson(response, 200, { result: "ERROR", message: "Invalid login" });
    if (request.path === "/campaign/query/") return sendJson(response, 200, { result: "SUCCESS", message: { totalResults: 1, data: [] } });
    if (request.path === "/order/import/") return sendJson(response, 200, { result: "SUCCESS", message: { orderId: `KB${(++counter).toString().padStart(6, "0")}` } });
    sendJson(response, 404, { result: "ERROR" });
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
