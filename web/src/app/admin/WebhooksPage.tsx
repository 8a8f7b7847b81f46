import { useEffect, useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { CreateEndpointReply, DeliveriesReply, EndpointsReply, SendReply } from "../../shared/api-types";
import { date, formValues, useAction, useApi } from "./hooks";
import { useMode } from "./mode";
import { ConfirmAction, Failure, Field, Message, Pager } from "./ui";

type Endpoint = EndpointsReply["endpoints"][number];

/** Webhook endpoints of the session's brand: add (secret shown once), test, delete, deliveries with each attempt. */
export function WebhooksPage() {
  const { data, error, reload } = useApi<EndpointsReply>("/api/admin/webhooks");
  const mode = useMode();
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [shown, setShown] = useState<{ id: string; page: number; tick: number } | null>(null);

  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    const events = new FormData(form).getAll("events").map(String);
    setSecret(null);
    void action.run(
      // A new endpoint receives the mode on screen (CONTRACT §39).
      () => api<CreateEndpointReply>("/api/admin/webhooks", { body: { url: v.url, ...(v.name ? { name: v.name } : {}), events: events.length ? events : ["*"], ...(mode === null ? {} : { livemode: mode }) } }),
      (r) => (form.reset(), reload(), setSecret(r.secret), `Added ${r.url}.`),
    );
  }
  const test = (e: Endpoint) =>
    action.run(
      () => api<SendReply>(`/api/admin/webhooks/${e.id}/test`, { method: "POST" }),
      (r) => {
        reload();
        setShown({ id: e.id, page: 1, tick: Date.now() });
        // A receiver's refusal (a 500, a timeout) is shown as the failure it is, not in the success style.
        if (!r.delivered) throw new Error(`Test not delivered to ${e.url}: ${r.delivery.lastError ?? `HTTP ${r.delivery.lastStatusCode}`}.`);
        return `Test delivered to ${e.url} (HTTP ${r.delivery.lastStatusCode}).`;
      },
    );
  const remove = (e: Endpoint) =>
    action.run(() => api(`/api/admin/webhooks/${e.id}`, { method: "DELETE" }), () => (reload(), shown?.id === e.id && setShown(null), `Deleted ${e.url}.`));

  return (
    <>
      <h1>Webhook endpoints</h1>
      <Failure error={error} />
      <Message message={action.message} />
      {secret && (
        <p className="notice">
          Signing secret (shown this once; store it now): <code data-testid="webhook-secret">{secret}</code>
        </p>
      )}
      {data && <p className="muted">{data.stats.totalDeliveries} deliveries, {data.stats.successRate}% succeeded.</p>}
      <table>
        <thead><tr><th>Name</th><th>URL</th><th>Events</th><th>Secret</th><th>Deliveries</th><th><span className="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {data?.endpoints.map((e) => (
            <tr key={e.id}>
              <td>{e.name}{!e.enabled && <span className="muted"> (disabled{e.disabledReason ? `: ${e.disabledReason}` : ""})</span>}</td>
              <td>{e.url}</td>
              <td>{e.events.join(", ")}</td>
              <td><code>{e.secret}</code></td>
              <td>{e.stats.totalDeliveries} ({e.stats.successRate}% ok)</td>
              <td className="actions">
                <button type="button" className="secondary" disabled={action.busy} onClick={() => test(e)} aria-label={`Send test to ${e.url}`}>Send test</button>
                <button type="button" className="secondary" onClick={() => setShown({ id: e.id, page: 1, tick: Date.now() })} aria-label={`Deliveries of ${e.url}`}>Deliveries</button>
                <ConfirmAction label="Delete" ariaLabel={`Delete ${e.url}`} question={`Delete ${e.url}? It receives no more events.`} confirm="Confirm delete" busy={action.busy} onConfirm={() => remove(e)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.endpoints.length === 0 && <p>No endpoints yet.</p>}
      {shown && <Deliveries key={`${shown.id}:${shown.tick}`} endpoint={data?.endpoints.find((e) => e.id === shown.id)} id={shown.id} />}
      <form className="card stack" onSubmit={add} style={{ marginTop: "1rem", maxWidth: "36rem" }}>
        <h2>Add an endpoint</h2>
        <Field id="url" label="URL" type="url" required placeholder="https://example.com/webhooks" />
        <Field id="name" label="Name (optional)" />
        <fieldset>
          <legend>Events (none ticked: all)</legend>
          {data?.availableEvents.map((ev) => (
            <div className="check" key={ev}>
              <input id={`event-${ev}`} name="events" type="checkbox" value={ev} />
              <label htmlFor={`event-${ev}`}>{ev}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={action.busy}>Add endpoint</button>
      </form>
    </>
  );
}

/** How often an open deliveries list asks again while the page is visible (issue 36: retries show up by themselves). */
const DELIVERIES_REFRESH_MS = 4000;

/** GET again every `ms` while the tab is visible, and at once when it becomes visible again. */
function useRefreshWhileVisible(reload: () => void, ms: number) {
  useEffect(() => {
    const timer = setInterval(() => document.visibilityState === "visible" && reload(), ms);
    const onVisible = () => document.visibilityState === "visible" && reload();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [reload, ms]);
}

/** The JSON body indented for reading; any other text as it is. */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Deliveries({ id, endpoint }: { id: string; endpoint: Endpoint | undefined }) {
  const [page, setPage] = useState(1);
  const { data, error, reload } = useApi<DeliveriesReply>(`/api/admin/webhooks/${id}/deliveries?page=${page}&limit=20`);
  useRefreshWhileVisible(reload, DELIVERIES_REFRESH_MS);
  const action = useAction();
  const resend = (d: DeliveriesReply["deliveries"][number]) =>
    void action.run(
      () => api<SendReply>(`/api/admin/webhooks/deliveries/${encodeURIComponent(d.id)}/resend`, { method: "POST" }),
      (r) => {
        reload();
        if (!r.delivered) throw new Error(`Sent again; not delivered: ${r.delivery.lastError ?? `HTTP ${r.delivery.lastStatusCode}`}.`);
        return `Sent again: delivered (HTTP ${r.delivery.lastStatusCode}).`;
      },
    );
  return (
    <section className="card deliveries" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {endpoint?.url ?? id}</h2>
      <p className="muted">Refreshed every few seconds while this page is open.</p>
      <Failure error={error} />
      <Message message={action.message} />
      {data && data.deliveries.length === 0 && <p>No deliveries yet.</p>}
      {data?.deliveries.map((d) => (
        <article key={d.id} className="stack delivery" aria-label={`Delivery ${d.eventType} ${d.id}`}>
          <h3>
            {d.eventType}{" "}
            <span className={d.status === "failed" ? "failed-text" : "muted"} data-testid="delivery-status">— {d.status}, {d.attempts} attempt{d.attempts === 1 ? "" : "s"}, {date(d.createdAt)}{d.nextAttemptAt ? `, next try ${date(d.nextAttemptAt)}` : ""}</span>
          </h3>
          {d.status !== "pending" && (
            <button type="button" className="secondary" disabled={action.busy} onClick={() => resend(d)} aria-label={`Resend ${d.eventType} delivery ${d.id}`}>Resend</button>
          )}
          <details>
            <summary>Request body</summary>
            <pre className="body" data-testid="request-body">{readable(d.requestBody)}</pre>
          </details>
          <table className="attempts">
            <caption className="sr-only">Attempts of delivery {d.id}</caption>
            <thead><tr><th>Attempt</th><th>When</th><th>HTTP status</th><th>Duration</th><th>Outcome</th></tr></thead>
            <tbody>
              {d.attemptLog.map((a) => (
                <tr key={`${a.attempt}:${a.createdAt}`} className={a.success ? undefined : "failed"} data-outcome={a.success ? "succeeded" : "failed"}>
                  <td>{a.attempt}</td>
                  <td>{date(a.createdAt)}</td>
                  <td>{a.statusCode ?? "—"}</td>
                  <td>{a.durationMs} ms</td>
                  <td>
                    <span className={a.success ? "ok-text" : "failed-text"}>{a.success ? "succeeded" : `failed${a.error ? `: ${a.error}` : ""}`}</span>
                    {a.responseBody !== null && (
                      <details>
                        <summary>Response body</summary>
                        <pre className="body" data-testid="response-body">{readable(a.responseBody)}</pre>
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      ))}
      {data && <Pager page={data.pagination.page} totalPages={data.pagination.totalPages} onPage={setPage} />}
    </section>
  );
}
