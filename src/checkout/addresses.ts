import { addressProblems } from "../lib/address-rules.js";
import { validationError } from "../lib/errors.js";
import type { Address } from "./schemas.js";

/**
 * Issue 36: the addresses stored with the order follow their country's rules, as the checkout page
 * checks them, for complete and pay (src/lib/address-rules.ts, one table): state/region and postal code where the country
 * requires them, postal codes in its format. 400 VALIDATION_ERROR naming the member, e.g.
 * `shippingAddress.postalCode`. Whether an address is sent at all stays the caller's (SPEC: optional).
 */
export function checkAddresses(input: { shippingAddress?: Address | null; billingAddress?: Address | null }): void {
  for (const member of ["shippingAddress", "billingAddress"] as const) {
    const address = input[member];
    if (!address) continue;
    const problems = addressProblems(address);
    const field = problems.state ? "state" : problems.postalCode ? "postalCode" : null;
    if (field) throw validationError(`${member}: ${problems[field]}`, `${member}.${field}`);
  }
}
