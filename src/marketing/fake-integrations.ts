import type { ServerResponse } from "node:http";
import { sendJson, startHttpFake, type FakeRequest } from "../lib/testing/fake-http.js";

/**
 * Test support: one real HTTP server speaking the three marketing integrations' wire protocols
 * (CONTRACT "External services"): email_list_a pages by `links.next`, email_list_b by offset (at
 * most `pageSize` per page whatever `count` asks), sms_segments in one answer. Records every request.
 */
export interface FakeIntegrations {
  baseUrl: string;
  requests: FakeRequest[];
  lists: { email_list_a: { id: string; name: string }[]; email_list_b: { id: string; name: string }[]; sms_segments: { id: string | number; name: string }[] };
  pageSize: number;
  /** Overrides email_list_a's `links.next` of the first page (e.g. another origin). */
  nextOverride: string | null;
  /** Answer every request with this status, `garbage` (unreadable JSON) or `hang` (never answer). */
  mode: number | "garbage" | "hang" | null;
  close(): Promise<void>;
}

export async function startFakeIntegrations(): Promise<FakeIntegrations> {
  const hanging: ServerResponse[] = [];
  const state = {
    requests: [] as FakeRequest[],
    lists: { email_list_a: [], email_list_b: [], sms_segments: [] } as FakeIntegrations["lists"],
    pageSize: 2,
    nextOverride: null as string | null,
    mode: null as FakeIntegrations["mode"],
  };
  const server = await startHttpFake((request, response) => {
    state.requests.push(request);
    if (state.mode === "hang") return void hanging.push(response);
    if (typeof state.mode === "number") return sendJson(response, state.mode, { error: "failure" });
    if (state.mode === "garbage") {
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end("{not json");
    }
    const url = new URL(request.path, "http://fake");
    if (url.pathname === "/api/lists/" || url.pathname === "/api/lists") {
      const page = Number(url.searchParams.get("page[cursor]") ?? "0");
      const slice = state.lists.email_list_a.slice(page * state.pageSize, (page + 1) * state.pageSize);
      const hasMore = (page + 1) * state.pageSize < state.lists.email_list_a.length;
      const next = page === 0 && state.nextOverride ? state.nextOverride : hasMore ? `${fake.baseUrl}/api/lists/?page%5Bcursor%5D=${page + 1}` : null;
      return sendJson(response, 200, { data: slice.map((l) => ({ type: "list", id: l.id, attributes: { name: l.name } })), links: { self: request.path, next } });
    }
    if (url.pathname === "/3.0/lists") {
      const offset = Number(url.searchParams.get("offset") ?? "0");
      const count = Math.min(Number(url.searchParams.get("count") ?? "10"), state.pageSize);
      return sendJson(response, 200, { lists: state.lists.email_list_b.slice(offset, offset + count), total_items: state.lists.email_list_b.length });
    }
    if (url.pathname === "/api/v2/segments") return sendJson(response, 200, { segments: state.lists.sms_segments });
    sendJson(response, 404, { error: "not found" });
  });
  const fake: FakeIntegrations = Object.assign(state, {
    baseUrl: server.baseUrl,
    close: async () => {
      for (const response of hanging.splice(0)) response.destroy();
      await server.close();
    },
  });
  return fake;
}
