import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { GenerateLinkReply, ListSalespeopleReply, PaymentLinkReply, PaymentLinksReply } from "../../shared/api-types";
import { formatMoney, parseMoney } from "../../shared/money";
import { date, formValues, useAction, useApi } from "./hooks";
import { useMode } from "./mode";
import { ConfirmAction, Failure, Field, Message, Select } from "./ui";

export function SalespeoplePage() {
  const { data, error, reload } = useApi<ListSalespeopleReply>("/api/admin/salespeople");
  const action = useAction();
  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    const rate = v.commissionRate ? Number(v.commissionRate) / 100 : undefined;
    void action.run(
      () => api("/api/admin/salespeople", { body: { name: v.name, email: v.email, password: v.password, ...(rate !== undefined ? { commissionRate: rate } : {}) } }),
      () => (form.reset(), reload(), `Added ${v.name}.`),
    );
  }
  return (
    <>
      <h1>Salespeople</h1>
      <Failure error={error} />
      <Message message={action.message} />
      <table>
        <thead><tr><th>Name</th><th>Email</th><th>Id</th><th>Rate</th><th>Since</th></tr></thead>
        <tbody>
          {data?.salespeople.map((s) => (
            <tr key={s.id}><td>{s.name}</td><td>{s.email}</td><td><code>{s.id}</code></td><td>{s.commissionRate === null ? "" : `${Math.round(s.commissionRate * 10000) / 100} %`}</td><td>{date(s.createdAt)}</td></tr>
          ))}
        </tbody>
      </table>
      <form className="card stack" onSubmit={add} style={{ marginTop: "1rem", maxWidth: "32rem" }}>
        <h2>Add a salesperson</h2>
        <Field id="name" label="Name" required />
        <Field id="email" label="Email" type="email" required />
        <Field id="password" label="Portal password" type="password" autoComplete="new-password" required minLength={12} />
        <Field id="commissionRate" label="Commission rate in % (optional)" type="number" min={0} max={100} step="0.01" />
        <button type="submit" disabled={action.busy}>Add salesperson</button>
      </form>
    </>
  );
}

/** What a link made now will be: the mode the switch shows (issue 33), sent as the body's `mode`; none yet: the brand's (the API's default). */
const modeBody = (livemode: boolean | null) => (livemode === null ? {} : { mode: livemode ? ("live" as const) : ("test" as const) });
const modeName = (livemode: boolean) => (livemode ? "live" : "test");

/** Payment links (lasting, no salesperson needed) and the one-hour quick link for a salesperson. */
export function LinksPage() {
  return (
    <>
      <h1>Payment links</h1>
      <p>
        A payment link is a product page you can share for up to a year: every buyer who opens it gets a fresh checkout at the price stored here.
        No salesperson is needed. Choose one only when sales through the link should earn them a commission.
      </p>
      <PaymentLinks />
      <QuickLink />
    </>
  );
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function PaymentLinks() {
  const people = useApi<ListSalespeopleReply>("/api/admin/salespeople");
  const links = useApi<PaymentLinksReply>("/api/admin/payment-links");
  const mode = useMode();
  const action = useAction();
  const [made, setMade] = useState<PaymentLinkReply["link"] | null>(null);
  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    const currency = v.currency.toUpperCase();
    void action.run(
      async () => {
        const price = parseMoney(v.price, currency);
        if (price === null || price < 1) throw new Error(`Price: enter an amount in ${currency}, such as 12.50.`);
        // The end of the chosen day (UTC); nothing chosen: the API's default of one year.
        const expiresAt = v.expires ? Math.min(Date.parse(`${v.expires}T23:59:59Z`), Date.now() + YEAR_MS - 60_000) : undefined;
        const optional = (key: string) => (v[key] ? { [key]: v[key] } : {});
        return api<PaymentLinkReply>("/api/admin/payment-links", {
          body: {
            productName: v.productName,
            ...optional("description"),
            ...optional("imageUrl"),
            quantity: Number(v.quantity || 1),
            price,
            currency,
            ...optional("successUrl"),
            ...optional("cancelUrl"),
            ...optional("salespersonId"),
            ...(v.salespersonId && v.commissionRate ? { commissionRate: Number(v.commissionRate) / 100 } : {}),
            ...(expiresAt ? { expiresAt } : {}),
            ...modeBody(mode),
          },
        });
      },
      (r) => (setMade(r.link), form.reset(), links.reload(), "Payment link created."),
    );
  }
  function disable(id: string) {
    return action.run(() => api<PaymentLinkReply>(`/api/admin/payment-links/${encodeURIComponent(id)}/disable`, { method: "POST" }), (r) => (links.reload(), `${r.link.productName}: link disabled.`));
  }
  return (
    <>
      <Failure error={links.error} />
      <table>
        <caption>Your payment links</caption>
        <thead><tr><th>Product</th><th>Price</th><th>Link</th><th>Salesperson</th><th>Mode</th><th>Sales</th><th>Status</th><th>Expires</th><th>Action</th></tr></thead>
        <tbody>
          {links.data?.links.map((l) => (
            <tr key={l.id}>
              <td>{l.productName}</td>
              <td>{l.quantity > 1 ? `${l.quantity} × ${formatMoney(l.price, l.currency)} = ` : ""}{formatMoney(l.total, l.currency)}</td>
              <td><a href={l.url} target="_blank" rel="noreferrer">{l.url}</a> <CopyButton text={l.url} label={`Copy the link for ${l.productName}`} /></td>
              <td>{l.salespersonName ?? "—"}</td>
              <td>{modeName(l.livemode)}</td>
              <td data-testid="link-sales">{l.salesCount}</td>
              <td>{l.status}</td>
              <td>{date(l.expiresAt)}</td>
              <td>{l.status === "active" && <ConfirmAction label="Disable" ariaLabel={`Disable the link for ${l.productName}`} question="Buyers will see “no longer available”." confirm="Disable link" busy={action.busy} onConfirm={() => disable(l.id)} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {links.data && links.data.links.length === 0 && <p>No payment links yet.</p>}
      <form className="card stack" onSubmit={create} style={{ maxWidth: "40rem", marginTop: "1rem" }} aria-label="New payment link">
        <h2>New payment link</h2>
        {mode !== null && <p className="muted" data-testid="payment-link-mode">Made in {modeName(mode)} mode{mode ? " (real money)" : " (demo payments only)"}: the mode the Live/Test switch shows.</p>}
        <Field id="productName" label="Product name" required maxLength={500} />
        <Field id="description" label="Description (optional)" maxLength={2000} />
        <Field id="imageUrl" label="Image URL (optional)" type="url" placeholder="https://…" />
        <div className="row">
          <Field id="price" label="Price per unit" inputMode="decimal" required placeholder="12.50" />
          <Field id="currency" label="Currency" defaultValue="USD" pattern="[A-Za-z]{3}" required />
          <Field id="quantity" label="Quantity" type="number" min={1} max={1000} defaultValue="1" required />
        </div>
        <Field id="successUrl" label="After paying, send the buyer to (optional)" type="url" placeholder="https://your-shop.example/thanks" />
        <Field id="cancelUrl" label="“Back to shop” link (optional)" type="url" placeholder="https://your-shop.example" />
        <Select id="salespersonId" label="Salesperson (optional, for commission)" options={[["", "No salesperson"], ...(people.data?.salespeople ?? []).map((s) => [s.id, s.name] as [string, string])]} />
        <Field id="commissionRate" label="Commission rate in % (optional; the salesperson's rate otherwise)" type="number" min={0} max={100} step="0.01" />
        <Field id="expires" label="Expires on (optional; at most one year, the default)" type="date" min={dayOf(Date.now() + 24 * 3600 * 1000)} max={dayOf(Date.now() + YEAR_MS - 24 * 3600 * 1000)} />
        <button type="submit" disabled={action.busy}>Create payment link</button>
        <Message message={action.message} />
        {made && (
          <p>
            <a href={made.url} data-testid="payment-link">{made.url}</a> <CopyButton text={made.url} label="Copy the new link" />
            <br />
            <span className="muted">Valid until {date(made.expiresAt)}; each buyer who opens it gets a fresh checkout.</span>
          </p>
        )}
      </form>
    </>
  );
}

/** The one-hour link of SPEC's generator: always credits a salesperson, so it needs one. */
function QuickLink() {
  const people = useApi<ListSalespeopleReply>("/api/admin/salespeople");
  const action = useAction();
  const [link, setLink] = useState<GenerateLinkReply | null>(null);
  const mode = useMode();
  const nobody = people.data !== null && people.data.salespeople.length === 0;
  function generate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const digits = new Intl.NumberFormat(undefined, { style: "currency", currency: v.currency || "USD" }).resolvedOptions().maximumFractionDigits ?? 2;
    void action.run(
      () =>
        api<GenerateLinkReply>("/api/admin/tools/generate-link", {
          body: {
            salespersonId: v.salespersonId,
            ...(v.commissionRate ? { commissionRate: Number(v.commissionRate) / 100 } : {}),
            orderInfo: { productName: v.productName, total: Math.round(Number(v.total) * 10 ** digits), currency: v.currency },
            ...modeBody(mode),
          },
        }),
      (r) => (setLink(r), "Link generated."),
    );
  }
  return (
    <form className="card stack" onSubmit={generate} style={{ maxWidth: "40rem", marginTop: "1rem" }} aria-label="Quick link">
      <h2>Quick one-hour link for a salesperson</h2>
      <p>A single checkout that expires after one hour and credits the chosen salesperson with the sale{mode === null ? "" : `, made in ${modeName(mode)} mode (the Live/Test switch)`}.</p>
      {nobody && <p className="notice" data-testid="quick-link-needs-salesperson">Quick links always credit a salesperson: add one on the Salespeople page first, or make a payment link above, which needs none.</p>}
      <Select id="quick-salespersonId" name="salespersonId" label="Salesperson" required options={(people.data?.salespeople ?? []).map((s) => [s.id, s.name] as [string, string])} />
      <Field id="quick-productName" name="productName" label="Product name" required />
      <div className="row">
        <Field id="quick-total" name="total" label="Price" type="number" min="0.01" step="0.01" required />
        <Field id="quick-currency" name="currency" label="Currency" defaultValue="USD" pattern="[A-Za-z]{3}" required />
      </div>
      <Field id="quick-commissionRate" name="commissionRate" label="Commission rate in % (optional; the salesperson's rate otherwise)" type="number" min={0} max={100} step="0.01" />
      <button type="submit" disabled={action.busy || nobody}>Generate link</button>
      <Message message={action.message} />
      {link && (
        <p>
          <a href={link.checkoutUrl} data-testid="generated-link">{link.checkoutUrl}</a>
          <br />
          <span className="muted" data-testid="generated-link-mode">Order {link.orderId}, {modeName(link.livemode)} mode, valid until {date(link.expiresAt)}</span>
        </p>
      )}
    </form>
  );
}

/** Copies `text` to the clipboard and says so (issue 36: a link is handed to buyers, not retyped). */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <>
      <button type="button" className="secondary copy" onClick={() => void copy()} aria-label={label}>Copy</button>
      <span role="status" className="muted">{copied === null ? "" : copied ? " Copied." : " Could not copy: select the link and copy it."}</span>
    </>
  );
}
