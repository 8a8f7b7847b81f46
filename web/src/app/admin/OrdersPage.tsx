import { useEffect, useRef, useState, type FormEvent } from "react";
import type { DisputeReply, OrderDetail, OrderListReply, RefundReply } from "../../shared/api-types";
import { api } from "../../shared/api";
import { formatMoney, parseMoney } from "../../shared/money";
import { PAYMENT_PROVIDERS } from "../../shared/providers";
import { date, formValues, useAction, useApi } from "./hooks";
import { useMode } from "./mode";
import { Failure, Field, Message, Select } from "./ui";
import { navigate, usePath } from "../router";

const ORDERS_PATH = "/admin/orders";
/** The order open at /admin/orders/<id> (its own address: shareable, survives a reload; issue 36). */
const openOrderOf = (path: string): string | null => {
  const rest = path.startsWith(`${ORDERS_PATH}/`) ? path.slice(ORDERS_PATH.length + 1).replace(/\/$/, "") : "";
  if (!rest) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
};

/** An address as the buyer gave it, one line per part; the keys the providers use (line1/address1, …). */
function AddressText({ address }: { address: unknown }) {
  if (!address || typeof address !== "object") return <>none given</>;
  const a = address as Record<string, unknown>;
  const text = (...keys: string[]) => keys.map((k) => a[k]).find((v): v is string => typeof v === "string" && v.trim() !== "") ?? "";
  const lines = [
    [text("firstName", "first_name"), text("lastName", "last_name")].filter(Boolean).join(" ") || text("name"),
    text("line1", "address1", "street"),
    text("line2", "address2"),
    [text("postalCode", "postal_code", "zip"), text("city")].filter(Boolean).join(" "),
    [text("state", "region"), text("country")].filter(Boolean).join(", "),
  ].filter(Boolean);
  if (lines.length === 0) return <>none given</>;
  return <>{lines.map((line, i) => <span key={i} className="address-line">{line}</span>)}</>;
}

const PAGE_SIZE = "25";
const STATUSES = ["paid", "partially_refunded", "refunded", "disputed", "failed"] as const;
const REFUND_REASONS: [string, string][] = [
  ["requested_by_customer", "Requested by the customer"],
  ["duplicate", "Duplicate"],
  ["fraudulent", "Fraudulent"],
  ["other", "Other"],
];

/** The brand's orders (issue 17): search, filters, cursor pages; an order opens its detail below the list. */
export function OrdersPage() {
  const [query, setQuery] = useState(new URLSearchParams({ limit: PAGE_SIZE }));
  // The cursors of the pages before this one, so "Previous" needs no backward cursor from the API.
  const [previous, setPrevious] = useState<string[]>([]);
  const { path } = usePath();
  const openId = openOrderOf(path);
  const setOpenId = (id: string | null) => navigate(id === null ? ORDERS_PATH : `${ORDERS_PATH}/${encodeURIComponent(id)}`);
  const { data, error } = useApi<OrderListReply>(`/api/admin/orders?${query}`);
  const mode = useMode();

  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const q = new URLSearchParams({ limit: PAGE_SIZE });
    for (const key of ["q", "status", "provider", "test"]) if (v[key]) q.set(key, v[key]);
    setPrevious([]);
    setQuery(q);
  }
  const withCursor = (cursor: string | undefined) => {
    const q = new URLSearchParams(query);
    if (cursor) q.set("cursor", cursor);
    else q.delete("cursor");
    return q;
  };
  const next = () => {
    setPrevious([...previous, query.get("cursor") ?? ""]);
    setQuery(withCursor(data!.nextCursor!));
  };
  // The export takes the same filters, without the page.
  const exportQuery = new URLSearchParams(query);
  exportQuery.delete("limit");
  exportQuery.delete("cursor");
  // The file holds the mode on screen (the switch), as the list does.
  if (mode !== null) exportQuery.set("livemode", String(mode));
  const back = () => {
    setQuery(withCursor(previous.at(-1) || undefined));
    setPrevious(previous.slice(0, -1));
  };

  return (
    <>
      <h1>Orders</h1>
      <form className="toolbar" onSubmit={filter} role="search" aria-label="Order filters">
        <Field id="q" label="Search" type="search" placeholder="Order id, transaction id, email or name" />
        <Select id="status" label="Status" options={[["", "Any"], ...STATUSES.map((s): [string, string] => [s, s.replace("_", " ")])]} />
        <Select id="provider" label="Provider" options={[["", "Any"], ...PAYMENT_PROVIDERS]} />
        <Select id="test" label="Paid with" options={[["", "Any payment"], ["true", "Demo cards only"], ["false", "No demo cards"]]} />
        <button type="submit">Search</button>
      </form>
      <Failure error={error} />
      <table>
        <thead>
          <tr><th>Created</th><th>Order</th><th>Customer</th><th>Amount</th><th>Status</th><th>Provider</th><th>Upsells</th></tr>
        </thead>
        <tbody>
          {data?.orders.map((o) => (
            <tr key={o.id}>
              <td>{date(o.createdAt)}</td>
              <td>
                <button type="button" className="link" onClick={() => setOpenId(o.id)} aria-label={`Open order ${o.orderId}`}>{o.orderId}</button>
                {o.test && <small> (test)</small>}
              </td>
              <td>{o.customerName} <small>{o.customerEmail}</small></td>
              <td>{formatMoney(o.amount, o.currency)}</td>
              <td>{o.status.replace("_", " ")}</td>
              <td>{o.provider}</td>
              <td>{o.upsells.length > 0 ? o.upsells.map((u) => formatMoney(u.amount, u.currency)).join(", ") : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.orders.length === 0 && <p>No orders match.</p>}
      <p className="actions">
        <button type="button" className="secondary" onClick={back} disabled={previous.length === 0}>Previous</button>
        <button type="button" className="secondary" onClick={next} disabled={!data?.nextCursor}>Next</button>
        <a className="button secondary" href={`/api/admin/orders/export.csv?${exportQuery}`} download>Export CSV</a>
      </p>
      {openId && <OrderPanel key={openId} id={openId} onClose={() => setOpenId(null)} />}
    </>
  );
}

function OrderPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const { data: order, error, reload } = useApi<OrderDetail>(`/api/admin/orders/${encodeURIComponent(id)}`);
  // Opened from its address (a shared link, a reload), the detail below the list is brought into view.
  const section = useRef<HTMLElement>(null);
  const shown = order !== null;
  useEffect(() => {
    if (shown) section.current?.scrollIntoView({ block: "start" });
  }, [shown]);
  return (
    <section aria-label="Order detail" ref={section}>
      <button type="button" onClick={onClose}>Close</button>
      <Failure error={error} />
      {order && (
        <>
          <h2>Order {order.orderId}</h2>
          <dl>
            <dt>Status</dt><dd>{order.status.replace("_", " ")}</dd>
            <dt>Customer</dt><dd>{order.customerName} ({order.customerEmail})</dd>
            <dt>Payment</dt><dd>{formatMoney(order.amount, order.currency)} via {order.provider}, transaction {order.transactionId}{order.test ? " (test)" : ""}</dd>
            {order.card && <><dt>Card</dt><dd data-testid="order-card">{cardText(order.card)}</dd></>}
            <dt>Billing address</dt><dd data-testid="billing-address"><AddressText address={order.billingAddress} /></dd>
            <dt>Shipping address</dt><dd data-testid="shipping-address"><AddressText address={order.shippingAddress} /></dd>
            {order.crm && <><dt>CRM</dt><dd>{order.crm.provider}: {order.crm.status ?? "pending"}{order.crm.orderId ? `, ${order.crm.orderId}` : ""}</dd></>}
            {order.checkoutId && <><dt>Checkout</dt><dd>{order.checkoutId}</dd></>}
            {Object.keys(order.metadata).length > 0 && (
              <><dt>Metadata</dt><dd>{Object.entries(order.metadata).map(([key, value]) => <div key={key}><code>{key}</code>: {value}</div>)}</dd></>
            )}
          </dl>
          <Attempts order={order} />
          {order.lineItems.length > 0 && (
            <table>
              <caption>Items</caption>
              <thead><tr><th>Item</th><th>Quantity</th><th>Unit price</th></tr></thead>
              <tbody>
                {order.lineItems.map((item) => (
                  <tr key={item.id}><td>{item.name ?? item.id}</td><td>{item.quantity}</td><td>{formatMoney(item.unitPrice, order.currency)}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          {order.upsells.length > 0 && (
            <table>
              <caption>Upsells</caption>
              <thead><tr><th>Order</th><th>Amount</th><th>Status</th><th>Transaction</th></tr></thead>
              <tbody>
                {order.upsells.map((u) => (
                  <tr key={u.id}><td>{u.orderId}</td><td>{formatMoney(u.amount, u.currency)}</td><td>{u.status}</td><td>{u.transactionId}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          {order.refunds.length > 0 && (
            <table>
              <caption>Refunds</caption>
              <thead><tr><th>When</th><th>Charge</th><th>Amount</th><th>Reason</th><th>Status</th></tr></thead>
              <tbody>
                {order.refunds.map((r) => (
                  <tr key={r.id}><td>{date(r.createdAt)}</td><td>{r.orderId}</td><td>{formatMoney(r.amount, r.currency)}</td><td>{r.reason.replaceAll("_", " ")}</td><td>{r.status}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          <RefundForm order={order} onRefunded={reload} />
          {order.disputes.length > 0 && (
            <section aria-label="Disputes">
              <h3>Disputes</h3>
              {order.disputes.map((d) => <DisputePanel key={d.id} orderRef={order.id} dispute={d} onChange={reload} />)}
            </section>
          )}
          {!order.livemode && <SimulateDispute orderRef={order.id} onDone={reload} />}
          {order.commissions.length > 0 && (
            <table>
              <caption>Commissions</caption>
              <thead><tr><th>Salesperson</th><th>Amount</th><th>Status</th></tr></thead>
              <tbody>
                {order.commissions.map((c) => (
                  <tr key={c.id}><td>{c.salespersonName ?? c.salespersonId}</td><td>{formatMoney(c.amount, c.currency)}</td><td>{c.status}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          <Timeline order={order} onResent={reload} />
        </>
      )}
    </section>
  );
}

const CARD_BRANDS: Record<string, string> = { visa: "Visa", mastercard: "Mastercard", amex: "American Express", discover: "Discover", jcb: "JCB", diners: "Diners Club", unionpay: "UnionPay", maestro: "Maestro" };
/** "Visa •••• 4242": the brand and the last four, never more of the number (issue 36). */
function cardText(card: NonNullable<OrderDetail["card"]>): string {
  const brand = card.brand ? (CARD_BRANDS[card.brand.toLowerCase()] ?? card.brand) : "Card";
  return card.last4 ? `${brand} •••• ${card.last4}` : brand;
}

/** Every provider attempt of the checkout's pay, oldest first: a cascade's declined first attempt is visible (issue 34). */
function Attempts({ order }: { order: OrderDetail }) {
  if (order.attempts.length === 0) return null;
  return (
    <table>
      <caption>Payment attempts</caption>
      <thead><tr><th>When</th><th>Provider</th><th>Result</th><th>Decline code</th><th>Route rule</th><th>Reason</th></tr></thead>
      <tbody>
        {order.attempts.map((a, i) => (
          <tr key={i}>
            <td>{date(a.at)}</td>
            <td>{a.provider}</td>
            <td>{a.result.replace("_", " ")}</td>
            <td>{a.declineCode ? `${a.declineCode}${a.declineClass ? ` (${a.declineClass})` : ""}${a.providerCode && a.providerCode !== a.declineCode ? `, provider code ${a.providerCode}` : ""}` : "—"}</td>
            <td>{a.routeRule}</td>
            <td>{a.routeReason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The order's events, oldest first, each with its webhook deliveries; a finished delivery can be sent again (admin or owner). */
function Timeline({ order, onResent }: { order: OrderDetail; onResent: () => void }) {
  const action = useAction();
  const resend = (deliveryId: string) =>
    void action.run(
      () => api(`/api/admin/webhooks/deliveries/${encodeURIComponent(deliveryId)}/resend`, { method: "POST" }),
      () => (onResent(), "Sent again."),
    );
  if (order.timeline.length === 0) return null;
  return (
    <>
      <table>
        <caption>Timeline</caption>
        <thead><tr><th>When</th><th>Event</th><th>Webhook deliveries</th></tr></thead>
        <tbody>
          {order.timeline.map((event) => (
            <tr key={event.id}>
              <td>{date(event.createdAt)}</td>
              <td>{event.type}</td>
              <td>
                {event.deliveries.length === 0 ? "—" : (
                  <ul>
                    {event.deliveries.map((d) => (
                      <li key={d.id}>
                        {d.url}: {d.status}, {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"}{d.lastStatusCode ? ` (HTTP ${d.lastStatusCode})` : ""}{" "}
                        {d.status !== "pending" && <button type="button" className="link" onClick={() => resend(d.id)} disabled={action.busy} aria-label={`Resend ${event.type} to ${d.url}`}>Resend</button>}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Message message={action.message} />
    </>
  );
}

/**
 * Refund all or part of one charge: the order's own payment or one upsell's (admin or owner; the API refuses others).
 * Issue 36: the form asks first, naming the amount and the charge; only "Confirm refund" sends. One
 * confirmation is one Idempotency-Key and one request at most (a second click while it runs, or a
 * repeat of the same confirmation, refunds nothing more); the amount is cleared after a success.
 */
function RefundForm({ order, onRefunded }: { order: OrderDetail; onRefunded: () => void }) {
  const action = useAction();
  const [invalid, setInvalid] = useState<string | null>(null);
  const [pending, setPending] = useState<{ charge: string; amount?: number; shown: string; reason: string; note?: string; key: string } | null>(null);
  const sending = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  // A disputed charge is answered through its dispute, not refunded (the API refuses it).
  const charges = [order, ...order.upsells].filter((c) => c.refunded < c.amount && c.status !== "disputed");
  if (charges.length === 0) return <p>Nothing on this order is left to refund.</p>;
  function ask(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const charge = charges.find((c) => c.id === v.charge) ?? charges[0]!;
    const amount = v.amount ? parseMoney(v.amount, charge.currency) : undefined;
    if (amount === null) return setInvalid("Enter an amount such as 12.50, or leave it empty to refund what is left.");
    setInvalid(null);
    const shown = `${formatMoney(amount ?? charge.amount - charge.refunded, charge.currency)} of charge ${charge.orderId}`;
    setPending({ charge: charge.id, ...(amount ? { amount } : {}), shown, reason: v.reason ?? "requested_by_customer", ...(v.note ? { note: v.note } : {}), key: crypto.randomUUID() });
  }
  function confirm() {
    if (!pending || sending.current) return;
    sending.current = true;
    const { key, shown: _shown, ...body } = pending;
    void action
      .run(
        () => api<RefundReply>(`/api/admin/orders/${encodeURIComponent(order.id)}/refunds`, { body, idempotencyKey: key }),
        (r) => {
          setPending(null);
          formRef.current?.reset();
          onRefunded();
          return `Refunded ${formatMoney(r.refund.amount, r.refund.currency)}.`;
        },
      )
      .finally(() => {
        sending.current = false;
      });
  }
  return (
    <form ref={formRef} onSubmit={ask} aria-label="Refund">
      <h3>Refund</h3>
      <Select id="charge" label="Charge" options={charges.map((c): [string, string] => [c.id, `${c.orderId}: ${formatMoney(c.amount - c.refunded, c.currency)} left`])} disabled={pending !== null} />
      <Field id="amount" label="Amount (empty: all that is left)" inputMode="decimal" aria-invalid={invalid ? true : undefined} disabled={pending !== null} />
      <Select id="reason" label="Reason" options={REFUND_REASONS} disabled={pending !== null} />
      <Field id="note" label="Note (optional)" maxLength={1000} disabled={pending !== null} />
      {invalid && <p role="alert">{invalid}</p>}
      {pending ? (
        <div className="confirm" role="group" aria-label="Confirm the refund">
          <p data-testid="refund-question">Refund {pending.shown} to the buyer? This cannot be undone.</p>
          <p className="actions">
            <button type="button" onClick={confirm} disabled={action.busy}>Confirm refund</button>
            <button type="button" className="secondary" onClick={() => setPending(null)} disabled={action.busy}>Cancel</button>
          </p>
        </div>
      ) : (
        <button type="submit" disabled={action.busy}>Refund</button>
      )}
      <Message message={action.message} />
    </form>
  );
}

const isOpen = (status: string) => status === "needs_response" || status === "under_review";

/** Issue 33: on a test order, a dispute as a provider would open it, to try the dispute flow without real money. */
function SimulateDispute({ orderRef, onDone }: { orderRef: string; onDone: () => void }) {
  const action = useAction();
  function simulate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(() => api<DisputeReply>(`/api/admin/orders/${encodeURIComponent(orderRef)}/disputes/simulate`, { body: {} }), () => (onDone(), "Test dispute opened."));
  }
  return (
    <form onSubmit={simulate} aria-label="Simulate a dispute">
      <button type="submit" className="secondary" disabled={action.busy}>Simulate a dispute (test order)</button>
      <Message message={action.message} />
    </form>
  );
}

/** One dispute of a charge; while it is open, evidence and acceptance (admin or owner; the API refuses others). */
function DisputePanel({ orderRef, dispute: d, onChange }: { orderRef: string; dispute: OrderDetail["disputes"][number]; onChange: () => void }) {
  const action = useAction();
  const answer = (what: "accept" | "evidence", body: unknown, done: (r: DisputeReply) => string) =>
    void action.run(() => api<DisputeReply>(`/api/admin/orders/${encodeURIComponent(orderRef)}/disputes/${encodeURIComponent(d.id)}/${what}`, { body }), (r) => (onChange(), done(r)));
  function evidence(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    answer("evidence", { text: formValues(event.currentTarget).text }, (r) => (r.dispute.evidenceSent ? "Evidence sent to the provider." : "Evidence kept here: this provider takes none through its API."));
  }
  function accept(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    answer("accept", {}, () => "Dispute accepted.");
  }
  return (
    <div className="card" aria-label={`Dispute ${d.providerDisputeId}`}>
      <p>
        {formatMoney(d.amount, d.currency)} of {d.orderId} ({d.provider}), {d.reason ?? "no reason given"}: <strong>{d.status.replaceAll("_", " ")}</strong>
        {d.dueBy !== null && isOpen(d.status) && <>, evidence due {date(d.dueBy)}</>}
      </p>
      {d.evidence && d.evidenceSubmittedAt !== null && <p>Evidence {d.evidenceSent ? "sent" : "kept"} {date(d.evidenceSubmittedAt)}: {d.evidence}</p>}
      {isOpen(d.status) && (
        <>
          <form onSubmit={evidence} aria-label="Dispute evidence">
            <label htmlFor={`evidence-${d.id}`}>Evidence</label>
            <textarea id={`evidence-${d.id}`} name="text" required maxLength={20000} rows={4} />
            <button type="submit" disabled={action.busy}>Submit evidence</button>
          </form>
          <form onSubmit={accept} aria-label="Accept dispute">
            <label className="check"><input type="checkbox" required /> Give up {formatMoney(d.amount, d.currency)} to the buyer</label>
            <button type="submit" className="secondary" disabled={action.busy}>Accept dispute</button>
          </form>
        </>
      )}
      <Message message={action.message} />
    </div>
  );
}
