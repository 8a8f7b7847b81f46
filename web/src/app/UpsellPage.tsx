import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { api, ApiError, messageOf } from "../shared/api";
import type { AcceptOfferResponse, CurrentOfferResponse, DeclineOfferResponse } from "../shared/api-types";
import { BrandBar, useBranding } from "../shared/branding";
import { formatMoney } from "../shared/money";
import { safeNavigationTarget } from "../shared/navigation";
import { cardNumberProblem, cvcProblem, digitsOf, expiryProblem, parseExpiry } from "../shared/card";
import { CardFields, type CardEntry } from "../shared/CardFields";

type CurrentOffer = CurrentOfferResponse;
type Offer = NonNullable<CurrentOffer["offer"]>;

type State = { kind: "loading" } | { kind: "missing" } | { kind: "expired"; end: string } | { kind: "offer"; data: CurrentOffer & { offer: Offer } };

/**
 * Where the flow ends: the checkout's successUrl, else /success, with the original order's id and the
 * session id (the success page's proof for reading what was charged, docs/web.md "Success page").
 */
function endOf(data: { successUrl: string | null; orderId?: string }, sessionId: string): string {
  const target = safeNavigationTarget(data.successUrl);
  if (!data.orderId) return target;
  const url = new URL(target, location.origin);
  url.searchParams.set("orderId", data.orderId);
  url.searchParams.set("sessionId", sessionId);
  return url.origin === location.origin ? `${url.pathname}${url.search}${url.hash}` : url.toString();
}

/** The card of "pay with another card": the checkout's card fields (issue 36), split for the API. */
const EMPTY_CARD: CardEntry = { cardNumber: "", cardExp: "", cardCvv: "" };
function cardFields(card: CardEntry) {
  const expiry = parseExpiry(card.cardExp);
  return { cardNumber: digitsOf(card.cardNumber), cardExpMonth: expiry?.month ?? "", cardExpYear: expiry?.year ?? "", cardCvv: card.cardCvv };
}
const CARD_ORDER = ["cardNumber", "cardExp", "cardCvv"] as const;
/** The card's problems as the checkout finds them (web/src/shared/card.ts). */
function cardProblems(card: CardEntry): Partial<Record<keyof CardEntry, string>> {
  return { cardNumber: cardNumberProblem(card.cardNumber), cardExp: expiryProblem(card.cardExp), cardCvv: cvcProblem(card.cardCvv, card.cardNumber) };
}
/** Plain sentences for the API's refusals of a card (field errors name the field). */
function cardMessage(e: unknown): string {
  if (!(e instanceof ApiError)) return messageOf(e);
  if (e.code === "VALIDATION_ERROR" && e.details === "cardNumber") return "Check the card number.";
  if (e.code === "VALIDATION_ERROR" && (e.details === "cardExpMonth" || e.details === "cardExpYear")) return "Check the expiry date (MM / YY).";
  if (e.code === "VALIDATION_ERROR" && e.details === "cardCvv") return "Check the security code.";
  if (e.code === "PAYMENT_FAILED") return "This card was declined too. Try another card.";
  if (e.code === "TOO_MANY_DECLINES") return "Too many declined payments. Please try again in a few minutes.";
  return messageOf(e);
}

function remaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function UpsellPage({ sessionId }: { sessionId: string }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const branding = useBranding();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** The offer whose one-click charge was refused: the page then offers a card form for it. */
  const [refusedOffer, setRefusedOffer] = useState<string | null>(null);
  const [card, setCard] = useState<CardEntry>(EMPTY_CARD);
  const [touched, setTouched] = useState<Partial<Record<keyof CardEntry, boolean>>>({});
  const cardHeading = useRef<HTMLHeadingElement>(null);
  const [now, setNow] = useState(() => Date.now());
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      const data = await api<CurrentOffer>(`/api/upsell/session/${encodeURIComponent(sessionId)}/offer`);
      if (data.status === "expired") return setState({ kind: "expired", end: endOf(data, sessionId) });
      if (!data.offer) return location.assign(endOf(data, sessionId));
      const external = safeNavigationTarget(data.offer.externalPageUrl, "");
      if (external) {
        const url = new URL(external);
        url.searchParams.set("sessionId", sessionId);
        return location.assign(url.toString());
      }
      setState({ kind: "offer", data: { ...data, offer: data.offer } });
    } catch (e) {
      setState(e instanceof ApiError && e.status === 404 ? { kind: "missing" } : { kind: "expired", end: "/success" });
    }
  }, [sessionId]);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const offerId = state.kind === "offer" ? state.data.offer.id : null;
  useEffect(() => {
    if (offerId) heading.current?.focus();
  }, [offerId]);
  const cardFormShown = refusedOffer !== null && refusedOffer === offerId;
  useEffect(() => {
    if (cardFormShown) cardHeading.current?.focus();
  }, [cardFormShown]);

  if (state.kind === "loading") return <main className="narrow" aria-busy="true"><p>Loading your offer…</p></main>;
  if (state.kind === "missing")
    return (
      <main className="narrow card stack">
        <h1>This offer is not available</h1>
        <p>Your original order is confirmed.</p>
        <a className="button" href="/success">Continue</a>
      </main>
    );
  const expired = state.kind === "expired" || state.data.expiresAt <= now;
  if (expired) {
    const end = state.kind === "expired" ? state.end : endOf(state.data, sessionId);
    return (
      <main className="narrow card stack">
        <h1>This offer has expired</h1>
        <p>Nothing more was charged; your original order is confirmed.</p>
        <a className="button" href={end}>Continue</a>
      </main>
    );
  }
  const { data } = state;
  const { offer } = data;
  const price = formatMoney(offer.price, data.currency);
  const saving = offer.originalPrice !== undefined && offer.originalPrice > offer.price ? offer.originalPrice - offer.price : 0;

  async function moveOn(result: AcceptOfferResponse | DeclineOfferResponse) {
    if (result.hasMoreOffers) {
      setCard(EMPTY_CARD);
      setTouched({});
      await load();
      setBusy(false);
    } else location.assign(endOf(data, sessionId));
  }

  async function answer(action: "accept" | "decline") {
    setBusy(true);
    setError(null);
    try {
      await moveOn(await api<AcceptOfferResponse | DeclineOfferResponse>(`/api/upsell/${action}`, { body: { sessionId, offerId: offer.id } }));
    } catch (e) {
      // The saved card was refused for this offer: offer to pay it with another card when the session's
      // provider takes one (docs/upsell.md); otherwise the refusal is said and "No, thanks" moves on.
      if (action === "accept" && data.payWithCard && e instanceof ApiError && e.code === "PAYMENT_FAILED") {
        setRefusedOffer(offer.id);
        setError(null);
      } else setError(messageOf(e));
      setBusy(false);
    }
  }

  const problems = cardProblems(card);
  const shownProblems = Object.fromEntries(CARD_ORDER.filter((f) => touched[f] && problems[f]).map((f) => [f, problems[f]]));

  async function payWithCard(event: FormEvent) {
    event.preventDefault();
    const invalid = CARD_ORDER.filter((f) => problems[f]);
    if (invalid.length > 0) {
      setTouched({ cardNumber: true, cardExp: true, cardCvv: true });
      document.getElementById(`upsell-${invalid[0]}`)?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await moveOn(await api<AcceptOfferResponse>("/api/upsell/pay-with-card", { body: { sessionId, offerId: offer.id, ...cardFields(card) } }));
    } catch (e) {
      setError(cardMessage(e));
      setBusy(false);
    }
  }

  return (
    <>
      <BrandBar branding={branding}>{offer.isDownsell ? "A better price, just for you" : "Wait! A special offer for your order"}</BrandBar>
      <main className="page">
        {data.originalOrder && (
          <p className="notice" data-testid="order-confirmed">
            Your order {data.orderId} of <strong>{formatMoney(data.originalOrder.amount, data.originalOrder.currency)}</strong> went through: it is paid and confirmed, whatever you choose below.
          </p>
        )}
        <p className="muted">
          This offer ends in <span className="countdown" role="timer" aria-live="off">{remaining(data.expiresAt - now)}</span>
        </p>
        <div className="offer card">
          {offer.image ? <img src={offer.image} alt={offer.name} width={480} height={360} /> : null}
          <div className="stack">
            <h1 ref={heading} tabIndex={-1} data-testid="offer-name">{offer.name}</h1>
            {offer.description && <p>{offer.description}</p>}
            <p>
              <span className="price" data-testid="offer-price">{price}</span>{" "}
              {saving > 0 && (
                <>
                  <span className="strike"><span className="sr-only">was </span>{formatMoney(offer.originalPrice!, data.currency)}</span>{" "}
                  <span className="saving">You save {formatMoney(saving, data.currency)}</span>
                </>
              )}
            </p>
            {cardFormShown ? (
              <form className="stack" onSubmit={payWithCard} aria-labelledby="card-heading" noValidate>
                <h2 id="card-heading" ref={cardHeading} tabIndex={-1}>Pay for this offer with another card</h2>
                <p>The card you used for your order was declined for this offer. Nothing was charged for it.</p>
                <CardFields card={card} onChange={setCard} errors={shownProblems} onBlur={(f) => setTouched((t) => ({ ...t, [f]: true }))} idPrefix="upsell-" />
                <div role="alert" className={error ? "error" : ""}>{error ?? ""}</div>
                <div className="actions">
                  <button type="submit" disabled={busy}>Pay {price}</button>
                  <button type="button" className="secondary" onClick={() => answer("decline")} disabled={busy}>No, thanks</button>
                </div>
              </form>
            ) : (
              <>
                <p className="muted">Charged to the card you just used, in one click.</p>
                <div role="alert" className={error ? "error" : ""}>{error ?? ""}</div>
                <div className="actions">
                  <button type="button" onClick={() => answer("accept")} disabled={busy}>Yes, add it for {price}</button>
                  <button type="button" className="secondary" onClick={() => answer("decline")} disabled={busy}>No, thanks</button>
                </div>
              </>
            )}
          </div>
        </div>
      </main>
    </>
  );
}
