import type { ConfirmationReply } from "./api-types";
import { formatMoney } from "./money";

// What an order's confirmation shows (docs/web.md "Success page"): the success page's, and the
// checkout page's when the buyer comes back to a paid checkout (issue 36).

export function Charges({ data }: { data: ConfirmationReply }) {
  return (
    <table data-testid="charges">
      <caption className="sr-only">What was charged</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Amount</th>
        </tr>
      </thead>
      <tbody>
        {data.charges.map((charge, i) => (
          <tr key={i} data-testid={`charge-${charge.kind}`}>
            <td>
              {charge.kind === "upsell" && <span className="muted">Added: </span>}
              {charge.items.map((item) => `${item.quantity > 1 ? `${item.quantity} × ` : ""}${item.name}`).join(", ")}
            </td>
            <td>{formatMoney(charge.amount, charge.currency)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        {data.totals.map((total) => (
          <tr key={total.currency}>
            <th scope="row">Total charged</th>
            <td data-testid={`total-${total.currency}`}>
              <strong>{formatMoney(total.amount, total.currency)}</strong>
            </td>
          </tr>
        ))}
      </tfoot>
    </table>
  );
}

/** The receipt's promise, only when the brand sends receipts, naming the masked address (issue 36). */
export function ReceiptNote({ data }: { data: ConfirmationReply }) {
  if (!data.receiptEmail) return null;
  return (
    <p className="muted" data-testid="receipt-note">
      {data.receiptTo ? (
        <>
          A receipt for each charge is on its way to <strong data-testid="receipt-to">{data.receiptTo}</strong>.
        </>
      ) : (
        "A receipt for each charge is on its way to your email."
      )}
    </p>
  );
}
