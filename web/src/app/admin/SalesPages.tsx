import { useState, type FormEvent } from "react";
import { api } from "../../shared/api";
import type { GenerateLinkReply, ListSalespeopleReply } from "../../shared/api-types";
import { date, formValues, useAction, useApi } from "./hooks";
import { Failure, Field, Message, Select } from "./ui";

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

export function LinksPage() {
  const people = useApi<ListSalespeopleReply>("/api/admin/salespeople");
  const action = useAction();
  const [link, setLink] = useState<GenerateLinkReply | null>(null);
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
          },
        }),
      (r) => (setLink(r), "Link generated."),
    );
  }
  return (
    <>
      <h1>Checkout link generator</h1>
      <Failure error={people.error} />
      <form className="card stack" onSubmit={generate} style={{ maxWidth: "32rem" }}>
        <Select id="salespersonId" label="Salesperson" required options={(people.data?.salespeople ?? []).map((s) => [s.id, s.name] as [string, string])} />
        <Field id="productName" label="Product name" required />
        <div className="row">
          <Field id="total" label="Price" type="number" min="0.01" step="0.01" required />
          <Field id="currency" label="Currency" defaultValue="USD" pattern="[A-Za-z]{3}" required />
        </div>
        <Field id="commissionRate" label="Commission rate in % (optional; the salesperson's rate otherwise)" type="number" min={0} max={100} step="0.01" />
        <button type="submit" disabled={action.busy || !people.data?.salespeople.length}>Generate link</button>
        <Message message={action.message} />
        {link && (
          <p>
            <a href={link.checkoutUrl} data-testid="generated-link">{link.checkoutUrl}</a>
            <br />
            <span className="muted">Order {link.orderId}, valid until {date(link.expiresAt)}</span>
          </p>
        )}
      </form>
    </>
  );
}
