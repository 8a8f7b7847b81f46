/**
 * The checkout token's claims, read for display only: the server verifies the signature and expiry
 * at initialize (SPEC "Checkout token claims").
 */
export interface CheckoutClaims {
  orderId: string;
  amount: number;
  currency: string;
  productName: string;
  productDescription?: string;
  productImage?: string;
  customer?: { email?: string; firstName?: string; lastName?: string; phone?: string };
  /** Issue 36: false when the order ships nothing (the page then asks no address); default true. */
  shippingAddressRequired?: boolean;
  shippingAddress?: { address1?: string; address2?: string; city?: string; state?: string; postalCode?: string; country?: string };
  provider?: string;
  brandId?: string;
  successUrl?: string;
  cancelUrl?: string;
  lineItems?: { id: string; name?: string; quantity: number; unitPrice: number; description?: string }[];
  exp: number;
  iat?: number;
}

/** The payload of a JWT, or null when it is not one with the required claims. */
export function decodeClaims(token: string): CheckoutClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const b64 = parts[1].replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(parts[1].length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as CheckoutClaims;
    if (typeof claims !== "object" || claims === null) return null;
    if (typeof claims.orderId !== "string" || typeof claims.amount !== "number" || typeof claims.currency !== "string" || typeof claims.exp !== "number") return null;
    return claims;
  } catch {
    return null;
  }
}
