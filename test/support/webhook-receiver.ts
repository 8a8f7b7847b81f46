// A real HTTP receiver on 127.0.0.1 for outgoing-webhook tests: records every request, answers as told.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer = { status: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get (default 200); a function sees each request. */
  answer: Answer | ((request: Received) => Answer);
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: "", received: [], answer: { status: 200 }, close: async () => {} };
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const entry = { path: request.url ?? "/", headers: request.headers, body };
      receiver.received.push(entry);
      const answer = typeof receiver.answer === "function" ? receiver.answer(entry) : receiver.answer;
      response.writeHead(answer.status, answer.headers ?? {});
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
