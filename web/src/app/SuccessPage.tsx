const ERRORS: Record<string, string> = {
  session_expired: "The offer had expired, so nothing more was charged.",
  session_not_found: "The offer could not be found, so nothing more was charged.",
};

export function SuccessPage({ search }: { search: URLSearchParams }) {
  const error = search.get("error");
  const orderId = search.get("orderId");
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>Thank you, your order is confirmed</h1>
        {orderId && (
          <p>
            Order reference: <strong data-testid="order-id">{orderId}</strong>
          </p>
        )}
        {error && <p className="notice" role="status">{ERRORS[error] ?? "Your original order is confirmed."}</p>}
        <p className="muted">A confirmation is on its way to your email. You can close this page.</p>
      </div>
    </main>
  );
}
