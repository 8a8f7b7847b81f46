import { useState } from "react";
import type { CheckoutClaims } from "../shared/jwt";
import { formatMoney } from "../shared/money";

/**
 * What the buyer is paying for: the product (its image only when given and loadable), each line
 * item with quantity and unit price, the subtotal and the total. The total is the token's amount;
 * a difference to the line items' sum (shipping, tax, a discount) is shown as its own line.
 */
export function OrderSummary({ claims }: { claims: CheckoutClaims }) {
  const [imageFailed, setImageFailed] = useState(false);
  const money = (minor: number) => formatMoney(minor, claims.currency);
  const items = claims.lineItems ?? [];
  const subtotal = items.length > 0 ? items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0) : claims.amount;
  const other = claims.amount - subtotal;
  return (
    <section className="card stack" aria-labelledby="product-name">
      {claims.productImage && !imageFailed && (
        <img className="product-image" src={claims.productImage} alt={claims.productName} width={352} height={264} referrerPolicy="no-referrer" onError={() => setImageFailed(true)} data-testid="product-image" />
      )}
      <h1 id="product-name">{claims.productName}</h1>
      {claims.productDescription && <p className="muted">{claims.productDescription}</p>}
      {items.length > 0 && (
        <table className="summary" data-testid="order-items">
          <caption className="sr-only">Your order</caption>
          <thead className="sr-only">
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Quantity and unit price</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item, index) => (
              <tr key={`${item.id}-${index}`} data-testid="line-item">
                <td>{item.name ?? item.id}</td>
                <td className="muted">
                  {item.quantity} × {money(item.unitPrice)}
                </td>
                <td className="amount">{money(item.unitPrice * item.quantity)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dl className="totals">
        {items.length > 0 && (
          <div>
            <dt>Subtotal</dt>
            <dd data-testid="subtotal">{money(subtotal)}</dd>
          </div>
        )}
        {items.length > 0 && other !== 0 && (
          <div>
            <dt>{other > 0 ? "Shipping, taxes and fees" : "Discount"}</dt>
            <dd>{money(other)}</dd>
          </div>
        )}
        <div className="total">
          <dt>Total</dt>
          <dd className="price" data-testid="price">
            {money(claims.amount)}
          </dd>
        </div>
      </dl>
    </section>
  );
}
