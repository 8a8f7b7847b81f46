import { sendJson, startHttpFake, takeFailure, type FakeFailure, type FakeRequest } from "../../lib/testing/fake-http.js";

/**
 * A fake of order_crm_a's CRM API at the network boundary (tests): basic auth, `new_order` and
 * `validate_credentials`. `failNext` makes the next call answer 500 or garbage.
 */
export interface FakeOrderCrmA {
  baseUrl: string;
  username: string;
  password: string;
  requests: (FakeRequest & { json: Record<string, unknown> })[];
  failNext: FakeFailure;
  close(): Promise<void>;
}

export async function startFakeOrderCrmA(username = "api-user", password = "crm-a-password-1234"): Promise<FakeOrderCrmA> {
  let counter = 0;
  const fake: FakeOrderCrmA = { baseUrl: "", username, password, requests: [], failNext: null, close: async () => {} };
  const server = await startHttpFake((request, response) => {
    let json: Record<string, unknown> = {};
    try {
      json = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    } catch {
      /* recorded as empty */
    }
    fake.requests.push({ ...request, json });
    const mode = takeFailure(fake);
    if (mode) {
      if (mode === "500") return sendJson(response, 500, { error: "down" });
      response.writeHead(200, { "content-type": "text/html" });
      return response.end("<html>");
    }
    if (request.headers.authorization !== `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`) {
      return sendJson(response, 200, { response_code: "200", error_found: "1", error_message: "Invalid login credentials" });
    }
    if (request.path === "/api/v1/validate_credentials") return sendJson(response, 200, { response_code: "100" });
    if (request.path === "/api/v1/new_order") return sendJson(response, 200, { response_code: "100", error_found: "0", order_id: String(50_000 + ++counter) });
    sendJson(response, 404, {});
  });
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
