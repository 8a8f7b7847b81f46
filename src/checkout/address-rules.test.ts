// Issue 36 item 1: address rules by country, one table (src/lib/address-rules.ts) for the checkout
// page and the server. The completion checks the addresses it stores with it; a checkout that ships
// nothing says so with `shippingAddressRequired: false` (a token claim and an /api/v1 member).
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { paidCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { addressProblems, addressRulesOf } from "../lib/address-rules.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const address = (overrides: Record<string, string>) => ({ line1: "1 Main St", city: "Springfield", state: "", postalCode: "", country: "US", ...overrides });

describe("address rules by country", () => {
  it("required, format and label per country; a sensible default for the others", () => {
    expect(addressProblems({ country: "GB", state: "", postalCode: "SW1A 1AA" })).toEqual({});
    expect(addressProblems({ country: "GB", state: "", postalCode: "12345" })).toEqual({ postalCode: "Enter a postcode like SW1A 1AA." });
    expect(addressProblems({ country: "US", state: "", postalCode: "" })).toEqual({ state: "Enter your state.", postalCode: "Enter your ZIP code." });
    expect(addressProblems({ country: "us", state: "IL", postalCode: "62701-1234" })).toEqual({});
    expect(addressProblems({ country: "CA", state: "ON", postalCode: "k1a0b1" })).toEqual({});
    expect(addressProblems({ country: "IE", state: "Dublin", postalCode: "" })).toEqual({});
    expect(addressProblems({ country: "NL", state: "", postalCode: "1012AB" })).toEqual({});
    expect(addressProblems({ country: "JP", state: "Tokyo", postalCode: "1000001" })).toEqual({});
    expect(addressProblems({ country: "IN", state: "Delhi", postalCode: "11000" })).toEqual({ postalCode: "Enter a PIN code like 110001." });
    expect(addressProblems({ country: "BR", state: "SP", postalCode: "01310-100" })).toEqual({});
    expect(addressProblems({ country: "KE", state: "", postalCode: "" })).toEqual({});
    expect(addressRulesOf("DE").state).toBeNull();
    expect(addressRulesOf("GB").state?.label).toBe("County (optional)");
    for (const country of ["US", "CA", "GB", "IE", "DE", "FR", "NL", "AU", "NZ", "JP", "IN", "BR", "ES", "IT"]) expect(addressRulesOf(country)).not.toBe(addressRulesOf("KE"));
  });

  it("POST /api/checkout/complete checks the addresses it stores: a US ZIP code in its format, a UK address without a county", async () => {
    const bad = await paidCheckoutViaApi(t);
    const refused = await post(t, "/api/checkout/complete", { ...bad.completion, shippingAddress: address({ state: "IL", postalCode: "6270" }) });
    expect(refused.statusCode).toBe(400);
    expect(json(refused)).toMatchObject({ code: "VALIDATION_ERROR", error: "shippingAddress: Enter a ZIP code like 94103.", details: "shippingAddress.postalCode" });
    const noState = await post(t, "/api/checkout/complete", { ...bad.completion, billingAddress: address({ postalCode: "62701" }) });
    expect(json(noState)).toMatchObject({ code: "VALIDATION_ERROR", details: "billingAddress.state" });

    const uk = await paidCheckoutViaApi(t);
    const gb = address({ city: "London", postalCode: "N1 9GU", country: "GB" });
    const done = await post(t, "/api/checkout/complete", { ...uk.completion, shippingAddress: gb, billingAddress: gb });
    expect(done.statusCode, done.body).toBe(200);
  });

  it("POST /api/v1/checkouts takes shippingAddressRequired; the token carries it (absent: as before)", async () => {
    const shop = await registerOwner(t, "Digital goods");
    const key = (await createApiKey(t, shop.session)).secret;
    const body = (extra: Record<string, unknown>) => ({ orderId: `dl-${Math.random()}`, amount: 1000, currency: "USD", productName: "E-book", ...extra });
    const created = await withKey(t, "POST", "/api/v1/checkouts", key, body({ shippingAddressRequired: false }));
    expect(created.statusCode, created.body).toBe(201);
    expect(decodeJwt(json(created).token)).toMatchObject({ shippingAddressRequired: false });
    const plain = await withKey(t, "POST", "/api/v1/checkouts", key, body({}));
    expect(decodeJwt(json(plain).token)).not.toHaveProperty("shippingAddressRequired");
    const wrong = await withKey(t, "POST", "/api/v1/checkouts", key, body({ shippingAddressRequired: "no" }));
    expect(wrong.statusCode).toBe(400);
    expect(json(wrong)).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
