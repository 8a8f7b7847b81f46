import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, ApiError, messageOf } from "../shared/api";
import { decodeClaims, type CheckoutClaims } from "../shared/jwt";
import { BrandBar, useBranding } from "../shared/branding";
import { safeNavigationTarget } from "../shared/navigation";
import { formatMoney } from "../shared/money";
import { CARD_PROVIDERS, completeCheckout, payWithCard, successLocation, type CardForm, type CustomerForm, type Initialized } from "./pay";

const DEFAULT_PROVIDER = "vault_gateway_b";

/** Friendlier words for the decline reasons of docs/providers.md; the API's own message follows. */
const REASONS: Record<string, string> = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  authentication_required: "Your bank requires authentication for this payment.",
  requires_action: "Your bank requires authentication for this payment.",
};

type InitState = { kind: "loading" } | { kind: "ready"; init: Initialized } | { kind: "failed"; error: ApiError | Error };

function Problem({ title, text }: { title: string; text: string }) {
  return (
    <main className="narrow">
      <div className="card stack" role="alert">
        <h1>{title}</h1>
        <p>{text}</p>
        <p className="muted">If you followed a link from a shop, go back to the shop and start the checkout again.</p>
      </div>
    </main>
  );
}

export function CheckoutPage({ path }: { path: string }) {
  const token = decodeURIComponent(path.replace(/^\/checkout\//, "").replace(/\/$/, ""));
  const claims = decodeClaims(token);
  if (!claims) return <Problem title="This checkout link is not valid" text="The link is incomplete or was changed. No payment was taken." />;
  if (claims.exp * 1000 <= Date.now()) return <Problem title="This checkout link has expired" text="Checkout links are valid for a limited time. No payment was taken." />;
  return <Checkout token={token} claims={claims} />;
}

function Checkout({ token, claims }: { token: string; claims: CheckoutClaims }) {
  const provider = claims.provider ?? DEFAULT_PROVIDER;
  const [state, setState] = useState<InitState>({ kind: "loading" });
  const branding = useBranding();
  const [form, setForm] = useState<CustomerForm>(() => ({
    email: claims.customer?.email ?? "",
    firstName: claims.customer?.firstName ?? "",
    lastName: claims.customer?.lastName ?? "",
    phone: claims.customer?.phone ?? "",
    line1: claims.shippingAddress?.address1 ?? "",
    line2: claims.shippingAddress?.address2 ?? "",
    city: claims.shippingAddress?.city ?? "",
    state: claims.shippingAddress?.state ?? "",
    postalCode: claims.shippingAddress?.postalCode ?? "",
    country: claims.shippingAddress?.country ?? "",
  }));
  const [card, setCard] = useState<CardForm>({ cardNumber: "", cardExpMonth: "", cardExpYear: "", cardCvv: "" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; field?: string } | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    api<Initialized>("/api/checkout/initialize", { body: { token, provider } })
      .then((init) => {
        if (!live) return;
        // hosted_store takes the card on its own page.
        const hosted = safeNavigationTarget(init.checkoutUrl, "");
        if (hosted) location.assign(hosted);
        setState({ kind: "ready", init });
      })
      .catch((e: Error) => live && setState({ kind: "failed", error: e }));
    return () => {
      live = false;
    };
  }, [token, provider]);

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  if (state.kind === "failed") {
    const e = state.error;
    if (e instanceof ApiError && e.code === "INVALID_TOKEN") return <Problem title="This checkout link is not valid or has expired" text="The shop's link could not be verified. No payment was taken." />;
    if (e instanceof ApiError && e.code === "CHECKOUT_COMPLETED") return <Problem title="This order is already paid" text="The checkout was completed earlier; nothing more is charged." />;
    if (e instanceof ApiError && e.code === "CHECKOUT_EXPIRED") return <Problem title="This checkout has expired" text="No payment was taken." />;
  }

  const price = formatMoney(claims.amount, claims.currency);
  const ready = state.kind === "ready";
  const cardProvider = (CARD_PROVIDERS as readonly string[]).includes(provider);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (state.kind !== "ready" || busy) return;
    setBusy(true);
    setError(null);
    try {
      const transactionId = await payWithCard(provider, claims, state.init, form, card);
      const done = await completeCheckout(provider, claims, state.init, form, transactionId);
      location.assign(successLocation(claims, done));
    } catch (e) {
      const reason = e instanceof ApiError && e.code === "PAYMENT_FAILED" ? REASONS[e.details ?? ""] : undefined;
      setError({ text: reason ? `${reason} (${messageOf(e)})` : messageOf(e), field: e instanceof ApiError && e.code === "VALIDATION_ERROR" ? e.details : undefined });
      setBusy(false);
    }
  }

  const field = (name: keyof CustomerForm, label: string, props: Record<string, unknown> = {}) => (
    <div>
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        value={form[name]}
        aria-invalid={error?.field?.endsWith(name) || undefined}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
        {...props}
      />
    </div>
  );
  const cardField = (name: keyof CardForm, label: string, props: Record<string, unknown>) => (
    <div>
      <label htmlFor={name}>{label}</label>
      <input id={name} name={name} value={card[name]} required inputMode="numeric" aria-invalid={error?.field === name || undefined} onChange={(e) => setCard({ ...card, [name]: e.target.value })} {...props} />
    </div>
  );

  return (
    <>
      <BrandBar branding={branding}>Secure checkout</BrandBar>
      <main className="page">
        <div className="checkout">
          <section className="card stack" aria-labelledby="product-name">
            {claims.productImage ? (
              <img className="product-image" src={claims.productImage} alt={claims.productName} width={352} height={264} />
            ) : (
              <div className="product-image empty" aria-hidden="true">
                {claims.productName.slice(0, 1)}
              </div>
            )}
            <h1 id="product-name">{claims.productName}</h1>
            {claims.productDescription && <p className="muted">{claims.productDescription}</p>}
            <p>
              <span className="muted">Total </span>
              <span className="price" data-testid="price">
                {price}
              </span>
            </p>
          </section>

          <form className="card stack" onSubmit={submit} aria-labelledby="pay-heading" noValidate={false}>
            <h2 id="pay-heading">Your details</h2>
            <div ref={errorRef} tabIndex={-1} role="alert" className={error ? "error" : "status-line"} data-testid="checkout-error">
              {error?.text ?? (state.kind === "failed" ? `The checkout could not be prepared: ${messageOf(state.error)}` : "")}
            </div>
            {field("email", "Email", { type: "email", autoComplete: "email", required: true })}
            <div className="row">
              {field("firstName", "First name", { autoComplete: "given-name", required: true })}
              {field("lastName", "Last name", { autoComplete: "family-name", required: true })}
            </div>
            {field("phone", "Phone (optional)", { type: "tel", autoComplete: "tel" })}
            <fieldset className="stack">
              <legend>Shipping address</legend>
              {field("line1", "Address", { autoComplete: "address-line1", required: true })}
              {field("line2", "Apartment, suite (optional)", { autoComplete: "address-line2" })}
              <div className="row">
                {field("city", "City", { autoComplete: "address-level2", required: true })}
                {field("state", "State / region", { autoComplete: "address-level1", required: true })}
              </div>
              <div className="row">
                {field("postalCode", "Postal code", { autoComplete: "postal-code", required: true })}
                {field("country", "Country", { autoComplete: "country", required: true })}
              </div>
            </fieldset>
            {cardProvider ? (
              <fieldset className="stack">
                <legend>Card</legend>
                {cardField("cardNumber", "Card number", { autoComplete: "cc-number", maxLength: 23 })}
                <div className="row">
                  {cardField("cardExpMonth", "Expiry month (MM)", { autoComplete: "cc-exp-month", maxLength: 2 })}
                  {cardField("cardExpYear", "Expiry year (YYYY)", { autoComplete: "cc-exp-year", maxLength: 4 })}
                  {cardField("cardCvv", "Security code", { autoComplete: "cc-csc", maxLength: 4 })}
                </div>
                <p className="muted demo-hint">Demo mode: card 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.</p>
              </fieldset>
            ) : provider !== "hosted_store" ? (
              <p className="error">This page cannot take payments for {provider}.</p>
            ) : null}
            <button type="submit" className="wide" disabled={!ready || busy || !cardProvider}>
              {busy ? "Paying…" : ready ? `Pay ${price}` : "Preparing checkout…"}
            </button>
          </form>
        </div>
      </main>
    </>
  );
}
