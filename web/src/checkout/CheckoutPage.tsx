import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { api, ApiError } from "../shared/api";
import { decodeClaims, type CheckoutClaims } from "../shared/jwt";
import { BrandBar, useBranding, type Branding } from "../shared/branding";
import { safeNavigationTarget } from "../shared/navigation";
import { formatMoney } from "../shared/money";
import { cardNumberProblem, cvcProblem, expiryProblem } from "../shared/card";
import { CardFields } from "../shared/CardFields";
import { Field, type FieldProps } from "../shared/Field";
import { countryList } from "./countries";
import { explainPaymentError, waitText } from "./messages";
import { addressProblems } from "../shared/address-rules";
import { AddressFields } from "./AddressFields";
import { OrderSummary } from "./OrderSummary";
import { PaidCheckout } from "./PaidCheckout";
import { CARD_PROVIDERS, checkoutProvider, completeCheckout, intentOutcome, payWithCard, storeOutcome, successLocation, type CardForm, type CustomerForm, type Initialized } from "./pay";

/** Providers whose API needs an address (docs/providers.md): the page asks for it whatever the token says. */
const ADDRESS_PROVIDERS: readonly string[] = ["order_crm_a", "order_crm_b", "cart_gateway"];

type InitState = { kind: "loading" } | { kind: "ready"; init: Initialized } | { kind: "failed"; error: unknown };
type FieldName = keyof CustomerForm | keyof CardForm;

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

// What the page keeps while the buyer is on the bank's or the store's page (docs/web.md).
const formKey = (orderId: string) => `checkout-form:${orderId}`;
const storeKey = (orderId: string) => `checkout-store:${orderId}`;
function readStored<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}
const store = (key: string, value: unknown) => {
  try {
    sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode without storage: the form is pre-filled from the token again.
  }
};
const forget = (orderId: string) => {
  try {
    sessionStorage.removeItem(formKey(orderId));
    sessionStorage.removeItem(storeKey(orderId));
  } catch {
    // nothing kept
  }
};

/**
 * Back from the bank's 3-D Secure page (`payment_intent`: the intent gateway's, whichever provider the
 * checkout started with, since the pay's route may have charged there) or the store's checkout
 * (`storeOrderId`, or remembered for the real store).
 */
function returnOf(claimProvider: string | undefined, orderId: string): { kind: "3ds" | "store"; id: string } | null {
  const query = new URLSearchParams(location.search);
  const intent = query.get("payment_intent");
  if ((claimProvider === undefined || claimProvider === "intent_gateway") && intent) return { kind: "3ds", id: intent };
  if (claimProvider !== undefined && claimProvider !== "hosted_store") return null;
  const fromStore = query.get("storeOrderId");
  if (fromStore) return { kind: "store", id: fromStore };
  // The real store does not send the buyer back with its id: the one they left for, unless it was the demo store (which always does).
  const remembered = readStored<{ storeOrderId: string; demo: boolean }>(storeKey(orderId));
  return remembered && !remembered.demo ? { kind: "store", id: remembered.storeOrderId } : null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const REQUIRED: Partial<Record<keyof CustomerForm, string>> = {
  firstName: "Enter your first name.",
  lastName: "Enter your last name.",
};
/** The address's own; state/region and postal code follow the country's rules (src/lib/address-rules.ts). */
const ADDRESS_REQUIRED: Partial<Record<keyof CustomerForm, string>> = {
  line1: "Enter your street address.",
  city: "Enter your town or city.",
  country: "Choose your country.",
};
/** The order the fields appear in: the first one with a problem gets the focus. */
const FIELD_ORDER: FieldName[] = ["email", "firstName", "lastName", "phone", "line1", "line2", "city", "state", "postalCode", "country", "cardName", "cardNumber", "cardExp", "cardCvv"];

function problemsOf(form: CustomerForm, card: CardForm, withCard: boolean, withAddress: boolean): Partial<Record<FieldName, string>> {
  const problems: Partial<Record<FieldName, string>> = {};
  if (!form.email.trim()) problems.email = "Enter your email address.";
  else if (!EMAIL.test(form.email.trim())) problems.email = "Enter an email address like name@example.com.";
  const required = withAddress ? { ...REQUIRED, ...ADDRESS_REQUIRED } : REQUIRED;
  for (const [name, text] of Object.entries(required) as [keyof CustomerForm, string][]) if (!form[name].trim()) problems[name] = text;
  if (withAddress) Object.assign(problems, addressProblems(form));
  if (withCard) {
    if (!card.cardName.trim()) problems.cardName = "Enter the name on the card.";
    problems.cardNumber = cardNumberProblem(card.cardNumber);
    problems.cardExp = expiryProblem(card.cardExp);
    problems.cardCvv = cvcProblem(card.cardCvv, card.cardNumber);
  }
  return problems;
}

/** "Back to shop.example" (the cancel URL's host; the brand's name for a path of ours). */
function BackLink({ cancelUrl, branding }: { cancelUrl?: string; branding: Branding | null }) {
  const target = safeNavigationTarget(cancelUrl, "");
  if (!target) return null;
  const host = /^https?:/i.test(target) ? new URL(target).hostname : "";
  return (
    <p className="back-link">
      <a href={target} data-testid="cancel-link">
        ← Back to {host || branding?.companyName || "the shop"}
      </a>
    </p>
  );
}

function initialForm(claims: CheckoutClaims): CustomerForm {
  const kept = readStored<CustomerForm>(formKey(claims.orderId));
  if (kept) return kept;
  const country = (claims.shippingAddress?.country ?? "").toUpperCase();
  return {
    email: claims.customer?.email ?? "",
    firstName: claims.customer?.firstName ?? "",
    lastName: claims.customer?.lastName ?? "",
    phone: claims.customer?.phone ?? "",
    line1: claims.shippingAddress?.address1 ?? "",
    line2: claims.shippingAddress?.address2 ?? "",
    city: claims.shippingAddress?.city ?? "",
    state: claims.shippingAddress?.state ?? "",
    postalCode: claims.shippingAddress?.postalCode ?? "",
    // Only an ISO code preselects; anything else leaves the choice to the buyer.
    country: /^[A-Z]{2}$/.test(country) ? country : "",
  };
}

function initProblem(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return `Too many requests right now. Please try again ${error.retryAfter !== undefined ? waitText(error.retryAfter) : "in a minute"}.`;
    if (error.status === 0) return error.message;
    if (error.status >= 500) return "The payment service is not answering right now. Nothing was charged. Please try again.";
    return `The checkout could not be prepared: ${error.message}`;
  }
  return "The checkout could not be prepared. Please try again.";
}

function Checkout({ token, claims }: { token: string; claims: CheckoutClaims }) {
  const [returned] = useState(() => returnOf(claims.provider, claims.orderId));
  const [state, setState] = useState<InitState>({ kind: "loading" });
  // The token's provider; else the first the token allows, known once initialized (CONTRACT §4).
  const provider = state.kind === "ready" ? state.init.provider : (claims.provider ?? null);
  const cardProvider = provider === null || CARD_PROVIDERS.includes(provider);
  /** Issue 36: the shipping address only when the checkout needs one (default) or the provider's API takes one. */
  const withAddress = claims.shippingAddressRequired !== false || (provider !== null && ADDRESS_PROVIDERS.includes(provider));
  const [attempt, setAttempt] = useState(0);
  const branding = useBranding();
  const [form, setForm] = useState<CustomerForm>(() => initialForm(claims));
  const [card, setCard] = useState<CardForm>({ cardNumber: "", cardExp: "", cardCvv: "", cardName: "" });
  /** The name on the card follows the buyer's name until they change it. */
  const [cardNameEdited, setCardNameEdited] = useState(false);
  const shownCard = cardNameEdited ? card : { ...card, cardName: `${form.firstName} ${form.lastName}`.trim() };
  const [touched, setTouched] = useState<Partial<Record<FieldName, boolean>>>({});
  const [busy, setBusy] = useState(false);
  /** Reading the outcome after the bank's or the store's page. */
  const [resuming, setResuming] = useState(returned !== null);
  const [payError, setPayError] = useState<{ text: string; field?: string } | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const countries = useMemo(() => countryList(), []);

  useEffect(() => {
    let live = true;
    const initialize = () =>
      checkoutProvider(token, claims)
        .then((chosen) => api<Initialized>("/api/checkout/initialize", { body: { token, provider: chosen } }))
        .then((init) => live && setState({ kind: "ready", init }))
        .catch((e: unknown) => live && setState({ kind: "failed", error: e }));
    if (returned && attempt === 0) {
      // Back from the bank or the store: read the payment's outcome, then complete.
      history.replaceState(null, "", location.pathname);
      (async () => {
        const transactionId = returned.kind === "3ds" ? await intentOutcome(returned.id) : await storeOutcome(claims, returned.id);
        const done = await completeCheckout(returned.kind === "3ds" ? "intent_gateway" : "hosted_store", claims, returned.id, form, transactionId);
        forget(claims.orderId);
        location.assign(successLocation(claims, done));
      })().catch((e: unknown) => {
        if (!live) return;
        try {
          sessionStorage.removeItem(storeKey(claims.orderId));
        } catch {
          // nothing kept
        }
        const conflict = e instanceof ApiError && e.status === 409 && returned.kind === "store";
        setPayError(conflict ? { text: "The store has not confirmed your payment. Nothing was charged. Continue to pay when you are ready." } : explainPaymentError(e));
        setResuming(false);
        void initialize();
      });
    } else void initialize();
    return () => {
      live = false;
    };
    // `form` is read once, at the return: typing does not restart this.
  }, [token, attempt]);

  useEffect(() => {
    if (payError) errorRef.current?.focus();
  }, [payError]);

  if (state.kind === "failed") {
    const e = state.error;
    if (e instanceof ApiError && e.code === "INVALID_TOKEN") return <Problem title="This checkout link is not valid or has expired" text="The shop's link could not be verified. No payment was taken." />;
    // Back after paying (issue 36): the order's confirmation, not a page inviting a second payment.
    if (e instanceof ApiError && e.code === "CHECKOUT_COMPLETED") return <PaidCheckout token={token} orderId={claims.orderId} branding={branding} />;
    if (e instanceof ApiError && e.code === "CHECKOUT_EXPIRED") return <Problem title="This checkout has expired" text="No payment was taken." />;
  }

  const price = formatMoney(claims.amount, claims.currency);
  const ready = state.kind === "ready";
  const problems = problemsOf(form, shownCard, cardProvider, withAddress);
  const shown = (name: FieldName) => (touched[name] ? problems[name] : undefined) ?? (payError?.field === name ? payError.text : undefined);

  function retry() {
    setState({ kind: "loading" });
    setAttempt((n) => n + 1);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (state.kind !== "ready" || busy || resuming) return;
    const invalid = FIELD_ORDER.filter((name) => problems[name]);
    if (invalid.length > 0) {
      setTouched(Object.fromEntries(FIELD_ORDER.map((name) => [name, true])));
      setPayError(null);
      document.getElementById(invalid[0]!)?.focus();
      return;
    }
    const init = state.init;
    setBusy(true);
    setPayError(null);
    if (provider === "hosted_store") {
      // The store takes the card on its own page; the form and the draft are kept for the way back.
      const target = safeNavigationTarget(init.checkoutUrl, "");
      if (target) {
        store(formKey(claims.orderId), form);
        store(storeKey(claims.orderId), { storeOrderId: init.providerOrderId, demo: init.demo === true });
        const url = new URL(target, location.origin);
        // Our own (demo) store page returns to this page; the real store's page is left as it is.
        if (url.origin === location.origin) url.searchParams.set("return_url", location.pathname);
        location.assign(url.toString());
        return;
      }
      setPayError({ text: "The store's payment page is not available. Please try again later." });
      setBusy(false);
      return;
    }
    try {
      // The pay may cascade to another provider after a soft decline: complete names the one that charged.
      const paid = await payWithCard(claims, form, shownCard);
      if ("redirect" in paid) {
        // 3-D Secure: the bank's page returns here with the intent (docs/web.md).
        store(formKey(claims.orderId), form);
        location.assign(paid.redirect);
        return;
      }
      const done = await completeCheckout(paid.provider, claims, paid.providerOrderId, form, paid.transactionId);
      location.assign(successLocation(claims, done));
    } catch (e) {
      setPayError(explainPaymentError(e));
      setBusy(false);
    }
  }

  const blur = (name: FieldName) => () => setTouched((t) => (t[name] ? t : { ...t, [name]: true }));
  const customerField = (name: keyof CustomerForm, label: string, props: Omit<FieldProps, "name" | "label"> = {}) => (
    <Field name={name} label={label} value={form[name]} error={shown(name)} onBlur={blur(name)} onChange={(e) => setForm({ ...form, [name]: e.target.value })} {...props} />
  );

  const demo = ready && state.init.demo === true;
  const initFailed = state.kind === "failed";

  return (
    <>
      <BrandBar branding={branding}>Secure checkout</BrandBar>
      <main className="page">
        <BackLink cancelUrl={claims.cancelUrl} branding={branding} />
        <div className="checkout">
          <OrderSummary claims={claims} />

          <form className="card stack" onSubmit={submit} aria-labelledby="pay-heading" noValidate>
            <h2 id="pay-heading">Your details</h2>
            <div ref={errorRef} tabIndex={-1} role="alert" className={payError || initFailed ? "error" : "status-line"} data-testid="checkout-error">
              {payError?.text ?? (initFailed ? initProblem(state.error) : resuming ? "Confirming your payment…" : "")}
            </div>
            {initFailed && (
              <button type="button" className="secondary" onClick={retry} data-testid="retry">
                Try again
              </button>
            )}
            {customerField("email", "Email", { type: "email", autoComplete: "email", required: true })}
            <div className="row">
              {customerField("firstName", "First name", { autoComplete: "given-name", required: true })}
              {customerField("lastName", "Last name", { autoComplete: "family-name", required: true })}
            </div>
            {customerField("phone", "Phone (optional)", { type: "tel", autoComplete: "tel" })}
            {withAddress && <AddressFields form={form} setForm={setForm} field={customerField} shown={shown} blur={blur} countries={countries} />}
            {cardProvider && (
              <fieldset className="stack">
                <legend>Card</legend>
                <Field
                  name="cardName"
                  label="Name on card"
                  autoComplete="cc-name"
                  required
                  value={shownCard.cardName}
                  error={shown("cardName")}
                  onBlur={blur("cardName")}
                  onChange={(e) => {
                    setCardNameEdited(true);
                    setCard({ ...card, cardName: e.target.value });
                  }}
                />
                <CardFields card={card} onChange={(next) => setCard({ ...card, ...next })} errors={{ cardNumber: shown("cardNumber"), cardExp: shown("cardExp"), cardCvv: shown("cardCvv") }} onBlur={(name) => blur(name)()} />
                {demo && (
                  <p className="muted demo-hint" data-testid="demo-hint">
                    Demo mode: card 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined{provider === "intent_gateway" ? "; 4000 0000 0000 3220 asks for 3-D Secure" : ""}.
                  </p>
                )}
              </fieldset>
            )}
            {provider === "hosted_store" && <p className="muted">You pay by card on the store's secure payment page, then come back here.</p>}
            <button type="submit" className="wide" disabled={!ready || busy || resuming}>
              {resuming ? "Confirming your payment…" : busy ? "Paying…" : !ready && !initFailed ? "Preparing checkout…" : provider === "hosted_store" ? `Continue to payment (${price})` : `Pay ${price}`}
            </button>
          </form>
        </div>
      </main>
    </>
  );
}
