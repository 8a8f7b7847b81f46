import type { FormEvent } from "react";
import { api } from "../../shared/api";
import type { BrandingReply, BrandsReply, OrganizationsReply, ReceiptSettings, UpdateBrandingReply, UsersReply } from "../../shared/api-types";
import type { AuthStateReply as AuthState } from "../../shared/api-types";
import { date, formValues, useAction, useApi } from "./hooks";
import { ConfirmAction, Failure, Field, Message, Select } from "./ui";

type User = UsersReply["users"][number];

export function UsersPage({ auth }: { auth: AuthState }) {
  const { data, error, reload } = useApi<UsersReply>("/api/admin/users");
  const action = useAction();
  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    void action.run(
      () => api("/api/admin/users", { body: { name: v.name, email: v.email, password: v.password, role: v.role, brandIds: auth.session.brandId ? [auth.session.brandId] : [] } }),
      () => (form.reset(), reload(), `Added ${v.email}.`),
    );
  }
  const setRole = (user: User, role: string) => action.run(() => api(`/api/admin/users/${user.id}`, { method: "PUT", body: { role } }), () => (reload(), `${user.email} is now ${role}.`));
  const remove = (user: User) => action.run(() => api(`/api/admin/users/${user.id}`, { method: "DELETE" }), () => (reload(), `Removed ${user.email}.`));
  return (
    <>
      <h1>Users</h1>
      <Failure error={error} />
      <Message message={action.message} />
      <table>
        <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Since</th><th><span className="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {data?.users.map((u) => (
            <tr key={u.id}>
              <td>{u.name}</td>
              <td>{u.email}</td>
              <td>
                <select aria-label={`Role of ${u.email}`} value={u.role} disabled={u.id === auth.session.userId} onChange={(e) => setRole(u, e.target.value)}>
                  {["owner", "admin", "member"].map((r) => <option key={r}>{r}</option>)}
                </select>
              </td>
              <td>{date(u.createdAt)}</td>
              <td>{u.id !== auth.session.userId && <button type="button" className="secondary" onClick={() => remove(u)}>Remove</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="card stack" onSubmit={add} style={{ marginTop: "1rem", maxWidth: "32rem" }}>
        <h2>Add a user</h2>
        <Field id="name" label="Name" required />
        <Field id="email" label="Email" type="email" required />
        <Field id="password" label="Initial password" type="password" autoComplete="new-password" required minLength={12} />
        <Select id="role" label="Role" options={["member", "admin", "owner"]} />
        <button type="submit" disabled={action.busy}>Add user</button>
      </form>
    </>
  );
}

export function TenantsPage({ auth, onChange }: { auth: AuthState; onChange: () => void }) {
  const orgs = useApi<OrganizationsReply>(auth.session.role === "owner" ? "/api/admin/organizations" : null);
  const brands = useApi<BrandsReply>("/api/admin/brands");
  const action = useAction();
  const create = (kind: "organizations" | "brands") => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    void action.run(
      () => api(`/api/admin/${kind}`, { body: { name: v.name, ...(v.slug ? { slug: v.slug } : {}) } }),
      () => (form.reset(), orgs.reload(), brands.reload(), onChange(), `Created ${v.name}.`),
    );
  };
  return (
    <>
      <h1>Organizations & brands</h1>
      <Message message={action.message} />
      <Failure error={brands.error} />
      <section className="card stack">
        <h2>Brands of this organization</h2>
        <ul>
          {brands.data?.brands.map((b) => (
            <li key={b.id} className="actions">
              <span>{b.name} <span className="muted">({b.slug}){b.id === brands.data?.currentBrandId ? ", current" : ""}</span></span>
              {auth.session.role !== "member" && b.id !== brands.data?.currentBrandId && (
                <ConfirmAction
                  label="Delete"
                  ariaLabel={`Delete brand ${b.name}`}
                  question={`Delete ${b.name}? It leaves this list; an owner can restore it.`}
                  confirm="Confirm delete"
                  busy={action.busy}
                  onConfirm={() => action.run(() => api(`/api/admin/brands/${b.id}`, { method: "DELETE" }), () => (brands.reload(), onChange(), `Deleted ${b.name}.`))}
                />
              )}
            </li>
          ))}
        </ul>
        <form className="toolbar" onSubmit={create("brands")}>
          <Field id="brand-name" name="name" label="New brand name" required />
          <Field id="brand-slug" name="slug" label="Slug" required pattern="[a-z0-9-]+" />
          <button type="submit" disabled={action.busy}>Create brand</button>
        </form>
      </section>
      {auth.session.role !== "member" && <BrandLook auth={auth} onChange={onChange} />}
      {auth.session.role !== "member" && <BrandReceipts />}
      {auth.session.role === "owner" && (
        <section className="card stack" style={{ marginTop: "1rem" }}>
          <h2>Organizations</h2>
          <Failure error={orgs.error} />
          <ul>{orgs.data?.organizations.map((o) => <li key={o.id}>{o.name} <span className="muted">({o.slug})</span></li>)}</ul>
          <form className="toolbar" onSubmit={create("organizations")}>
            <Field id="org-name" name="name" label="New organization name" required />
            <Field id="org-slug" name="slug" label="Slug (optional)" />
            <button type="submit" disabled={action.busy}>Create organization</button>
          </form>
        </section>
      )}
    </>
  );
}

/**
 * The current brand's name (PUT /api/admin/brands/<id>), logo and colour (PUT /api/admin/branding),
 * as buyers see them on the checkout and upsell pages. The form shows what is stored
 * (GET /api/admin/brand-look); a blank logo or colour removes it.
 */
function BrandLook({ auth, onChange }: { auth: AuthState; onChange: () => void }) {
  const look = useApi<BrandingReply>("/api/admin/brand-look");
  const action = useAction();
  const brandId = auth.session.brandId;
  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const name = (v.brandName ?? "").trim();
    void action.run(
      async () => {
        if (brandId && name && name !== look.data?.companyName) await api(`/api/admin/brands/${brandId}`, { method: "PUT", body: { name } });
        return api<UpdateBrandingReply>("/api/admin/branding", { method: "PUT", body: { logoUrl: v.logoUrl ?? "", color: v.color ?? "" } });
      },
      (r) => (look.reload(), onChange(), `Saved ${r.companyName}: logo ${r.logoUrl ?? "none"}, colour ${r.color ?? "default"}.`),
    );
  }
  const data = look.data;
  return (
    <section className="card stack" style={{ marginTop: "1rem" }}>
      <h2>Name and look on checkout and upsell pages</h2>
      <Failure error={look.error} />
      <Message message={action.message} />
      {data && (
        // Keyed by what is stored, so the fields show the saved values after each save.
        <form key={JSON.stringify(data)} className="stack" onSubmit={save} style={{ maxWidth: "32rem" }} aria-label="Brand look">
          <Field id="brandName" label="Brand name (shown to buyers)" required maxLength={200} defaultValue={data.companyName} />
          <Field id="logoUrl" label="Logo URL (https; blank: no logo)" type="url" defaultValue={data.logoUrl ?? ""} />
          <Field id="color" label="Colour, #rrggbb (blank: the default colour)" pattern="#[0-9a-fA-F]{6}" placeholder="#1d4ed8" defaultValue={data.color ?? ""} />
          <button type="submit" disabled={action.busy}>Save look</button>
        </form>
      )}
    </section>
  );
}

/** GET/PUT /api/admin/receipt-settings: receipt mails to buyers on or off, and the support address they show. */
function BrandReceipts() {
  const { data, error, reload } = useApi<ReceiptSettings>("/api/admin/receipt-settings");
  const action = useAction();
  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    void action.run(
      () => api<ReceiptSettings>("/api/admin/receipt-settings", { method: "PUT", body: { enabled: v.receiptsEnabled === "on", supportEmail: v.supportEmail ?? "" } }),
      (r) => (reload(), r.enabled ? `Receipts on${r.supportEmail ? `, replies to ${r.supportEmail}` : ""}.` : "Receipts off: buyers get no mail from us."),
    );
  }
  return (
    <section className="card stack" style={{ marginTop: "1rem" }}>
      <h2>Receipts to buyers</h2>
      <Failure error={error} />
      <Message message={action.message} />
      {data && (
        <form className="stack" onSubmit={save} style={{ maxWidth: "32rem" }} aria-label="Receipts">
          <div className="check"><input id="receiptsEnabled" name="receiptsEnabled" type="checkbox" defaultChecked={data.enabled} /><label htmlFor="receiptsEnabled">Mail buyers a receipt after each purchase, upsell and refund</label></div>
          <Field id="supportEmail" label="Support address shown in receipts (blank: none)" type="email" defaultValue={data.supportEmail ?? ""} />
          <button type="submit" disabled={action.busy}>Save receipts</button>
        </form>
      )}
    </section>
  );
}
