import { useCallback, useEffect, useRef, useState } from "react";
import { api, ApiError, messageOf } from "../shared/api";
import type { AcceptOfferResponse, CurrentOfferResponse, DeclineOfferResponse } from "../shared/api-types";
import { BrandBar, useBranding } from "../shared/branding";
import { formatMoney } from "../shared/money";
import { safeNavigationTarget } from "../shared/navigation";

type CurrentOffer = CurrentOfferResponse;
type Offer = NonNullable<CurrentOffer["offer"]>;

type State = { kind: "loading" } | { kind: "missing" } | { kind: "expired"; end: string } | { kind: "offer"; data: CurrentOffer & { offer: Offer } };

const endOf = (data: { successUrl: string | null }) => safeNavigationTarget(data.successUrl);

function remaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function UpsellPage({ sessionId }: { sessionId: string }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const branding = useBranding();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      const data = await api<CurrentOffer>(`/api/upsell/session/${encodeURIComponent(sessionId)}/offer`);
      if (data.status === "expired") return setState({ kind: "expired", end: endOf(data) });
      if (!data.offer) return location.assign(endOf(data));
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
    const end = state.kind === "expired" ? state.end : endOf(state.data);
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

  async function answer(action: "accept" | "decline") {
    setBusy(true);
    setError(null);
    try {
      const result = await api<AcceptOfferResponse | DeclineOfferResponse>(`/api/upsell/${action}`, { body: { sessionId, offerId: offer.id } });
      if (result.hasMoreOffers) {
        await load();
        setBusy(false);
      } else location.assign(endOf(data));
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  }

  return (
    <>
      <BrandBar branding={branding}>{offer.isDownsell ? "A better price, just for you" : "Wait! A special offer for your order"}</BrandBar>
      <main className="page">
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
            <p className="muted">Charged to the card you just used, in one click.</p>
            <div role="alert" className={error ? "error" : ""}>{error ?? ""}</div>
            <div className="actions">
              <button type="button" onClick={() => answer("accept")} disabled={busy}>Yes, add it for {price}</button>
              <button type="button" className="secondary" onClick={() => answer("decline")} disabled={busy}>No, thanks</button>
            </div>
          </div>
        </div>
      </main>
    </>
  );
}
