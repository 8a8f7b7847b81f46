import type { FormEvent } from "react";
import { api } from "../../shared/api";
import type { AddDomainReply, DomainsReply, UpdateDomainReply } from "../../shared/api-types";
import { date, formValues, useAction, useApi } from "./hooks";
import { ConfirmAction, Failure, Field, Message } from "./ui";

type Domain = DomainsReply["domains"][number];

/** Custom domains of the session's brand: add, DNS records to create, verify, make primary, remove. */
export function DomainsPage() {
  const { data, error, errorCode, reload } = useApi<DomainsReply>("/api/admin/domains");
  const action = useAction();
  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const v = formValues(form);
    void action.run(
      () => api<AddDomainReply>("/api/admin/domains", { body: { domain: v.domain, primary: v.primary === "on" } }),
      (r) => (form.reset(), reload(), `Added ${r.domain.domain}. Create the DNS records shown below, then press Verify.`),
    );
  }
  const verify = (d: Domain) =>
    action.run(
      () => api<UpdateDomainReply>("/api/admin/domains", { method: "PUT", body: { domain: d.domain, action: "verify" } }),
      (r) => (reload(), "verified" in r && r.verified ? `${d.domain} is verified.` : `${d.domain} is not verified yet: ${("error" in r && r.error) || "the DNS records were not found"}.`),
    );
  const primary = (d: Domain) =>
    action.run(() => api("/api/admin/domains", { method: "PUT", body: { domain: d.domain, action: "setPrimary", primary: !d.primary } }), () => (reload(), d.primary ? `${d.domain} is no longer primary.` : `${d.domain} is now the primary domain.`));
  const remove = (d: Domain) =>
    action.run(() => api(`/api/admin/domains?domain=${encodeURIComponent(d.domain)}`, { method: "DELETE" }), () => (reload(), `Removed ${d.domain}.`));

  return (
    <>
      <h1>Domains</h1>
      <p className="muted">Serve this brand's checkout on its own host name.</p>
      {errorCode === "HOSTING_NOT_CONFIGURED" ? (
        <p className="info" data-testid="hosting-not-configured">
          Custom domains are not available yet: the operator of this service has to connect it to a hosting platform first. Operators find the
          steps in the operator guide, <code>docs/domains.md</code> ("Hosting platform calls").
        </p>
      ) : (
        <Failure error={error} />
      )}
      <Message message={action.message} />
      {data?.domains.length === 0 && <p>No custom domains yet.</p>}
      {data?.domains.map((d) => (
        <section key={d.domain} className="card stack" style={{ marginBottom: "1rem" }} aria-label={d.domain}>
          <h2>{d.domain}</h2>
          <p>
            <strong>{d.verified ? "Verified" : "Not verified"}</strong>
            {d.primary ? ", primary" : ""} <span className="muted">— added {date(d.createdAt)}</span>
          </p>
          {d.dnsInstructions.length > 0 && (
            <>
              <p>Create these DNS records:</p>
              <pre className="dns">{d.dnsInstructions.join("\n")}</pre>
            </>
          )}
          <p className="actions">
            {!d.verified && <button type="button" disabled={action.busy} onClick={() => verify(d)} aria-label={`Verify ${d.domain}`}>Verify</button>}
            <button type="button" className="secondary" disabled={action.busy} onClick={() => primary(d)}>{d.primary ? "Unset primary" : "Make primary"}</button>
            <ConfirmAction label="Remove" ariaLabel={`Remove ${d.domain}`} question={`Remove ${d.domain}? Checkouts on it stop being served.`} confirm="Confirm remove" busy={action.busy} onConfirm={() => remove(d)} />
          </p>
        </section>
      ))}
      {errorCode !== "HOSTING_NOT_CONFIGURED" && (
      <form className="card stack" onSubmit={add} style={{ maxWidth: "32rem" }}>
        <h2>Add a domain</h2>
        <Field id="domain" label="Host name" required placeholder="pay.example.com" />
        <div className="check">
          <input id="primary" name="primary" type="checkbox" />
          <label htmlFor="primary">Primary domain of the brand</label>
        </div>
        <button type="submit" disabled={action.busy}>Add domain</button>
      </form>
      )}
    </>
  );
}
