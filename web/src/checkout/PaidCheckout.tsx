import { useEffect, useState } from "react";
import { api } from "../shared/api";
import type { ConfirmationReply } from "../shared/api-types";
import { BrandBar, type Branding } from "../shared/branding";
import { Charges, ReceiptNote } from "../shared/Charges";

type Read = { kind: "loading" } | { kind: "loaded"; data: ConfirmationReply } | { kind: "unavailable" };

/**
 * Issue 36 item 2: the buyer back on the checkout page of an order already paid (the browser's Back
 * button, an old tab) sees the branded confirmation of that order with its charges: nothing that
 * invites paying again. The checkout token is the proof (POST /api/checkout/confirmation).
 */
export function PaidCheckout({ token, orderId, branding }: { token: string; orderId: string; branding: Branding | null }) {
  const [read, setRead] = useState<Read>({ kind: "loading" });
  useEffect(() => {
    let live = true;
    api<ConfirmationReply>("/api/checkout/confirmation", { body: { token } })
      .then((data) => live && setRead({ kind: "loaded", data }))
      .catch(() => live && setRead({ kind: "unavailable" }));
    return () => {
      live = false;
    };
  }, [token]);
  const data = read.kind === "loaded" ? read.data : null;
  return (
    <>
      <BrandBar branding={branding}>Order confirmed</BrandBar>
      <main className="narrow">
        <div className="card stack" data-testid="paid-checkout">
          <h1>This order is paid</h1>
          <p>
            Your payment went through earlier; nothing more is charged. Order reference: <strong data-testid="order-id">{data?.orderId ?? orderId}</strong>
          </p>
          {read.kind === "loading" && (
            <p className="muted" aria-busy="true">
              Loading what was charged…
            </p>
          )}
          {data && <Charges data={data} />}
          {data && <ReceiptNote data={data} />}
          <p className="muted">You can close this page.</p>
        </div>
      </main>
    </>
  );
}
