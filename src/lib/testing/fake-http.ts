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
