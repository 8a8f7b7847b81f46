import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Test support for the providers' fake servers: a real HTTP server on 127.0.0.1:0. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export async function startHttpFake(handle: (request: FakeRequest, response: ServerResponse) => void): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => handle({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body }, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};

/** What a test asks a fake to answer next instead of the real thing: a 500, or a 200 that is not the API's format. */
export type FakeFailure = "500" | "garbage" | null;

/** Takes the failure a test asked for, once: the call after it is answered normally again. */
export function takeFailure(fake: { failNext: FakeFailure }): FakeFailure {
  const mode = fake.failNext;
  fake.failNext = null;
  return mode;
}

/** A JSON request body, or {} when it is not JSON (recorded as empty). */
export function jsonOf(body: string): Record<string, any> {
  try {
    return body ? JSON.parse(body) : {};
  } catch {
    return {};
  }
}
