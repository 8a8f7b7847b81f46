import { useEffect, useState } from "react";
import { api } from "../shared/api";
import type { ConfirmationReply } from "../shared/api-types";
import { BrandBar, useBranding } from "../shared/branding";
import { Charges, ReceiptNote } from "../shared/Charges";

const ERRORS: Record<string, string> = {
  session_expired: "The offer had expired, so nothing more was charged.",
  session_not_found: "The offer could not be found, so nothing more was charged.",
};

type Details = { kind: "none" } | { kind: "loading" } | { kind: "loaded"; data: ConfirmationReply } | { kind: "unavailable" };

/**
 * The order confirmation (docs/web.md "Success page"). What was charged is read with the proof the
 * URL carries (the checkout's transactionId, or the upsell session id): without one, only the
 * reference is shown. A receipt email is promised only when the brand sends receipts.
 */
export function SuccessPage({ search }: { search: URLSearchParams }) {
  const branding = useBranding();
  const error = search.get("error");
  const orderId = search.get("orderId");
  const transactionId = search.get("transactionId");
  const sessionId = search.get("sessionId");
  const [details, setDetails] = useState<Details>(orderId && (transactionId || sessionId) ? { kind: "loading" } : { kind: "none" });

  useEffect(() => {
    if (!orderId || !(transactionId || sessionId)) return;
    const query = new URLSearchParams({ orderId, ...(sessionId ? { sessionId } : { transactionId: transactionId! }) });
    api<ConfirmationReply>(`/api/checkout/confirmation?${query}`)
      .then((data) => setDetails({ kind: "loaded", data }))
      .catch(() => setDetails({ kind: "unavailable" }));
  }, [orderId, transactionId, sessionId]);

  const data = details.kind === "loaded" ? details.data : null;
  return (
    <>
      <BrandBar branding={branding}>Order confirmed</BrandBar>
      <main className="narrow">
        <div className="card stack">
          <h1>Thank you, your order is confirmed</h1>
          {orderId && (
            <p>
              Order reference: <strong data-testid="order-id">{data?.orderId ?? orderId}</strong>
            </p>
          )}
          {error && <p className="notice" role="status">{ERRORS[error] ?? "Your original order is confirmed."}</p>}
          {details.kind === "loading" && <p className="muted" aria-busy="true">Loading what was charged…</p>}
          {details.kind === "unavailable" && <p className="muted">The details of the charges cannot be shown here; your order reference is above.</p>}
          {data && <Charges data={data} />}
          {data && <ReceiptNote data={data} />}
          <p className="muted">You can close this page.</p>
        </div>
      </main>
    </>
  );
}
