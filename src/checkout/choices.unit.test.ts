// Which payment providers a checkout allows (CONTRACT §4) and which CRM records an order (SPEC complete rule 1).
import { describe, expect, it } from "vitest";
import { PAYMENT_PROVIDERS } from "../providers/types.js";
import { allowedProviders } from "./allowed-providers.js";
import { chooseCrm, isSettingOn } from "./crm-choice.js";

describe("allowedProviders", () => {
  it("allows only the token's provider claim, whatever the brand enables", () => {
    expect(allowedProviders("hosted_store", ["intent_gateway"])).toEqual(["hosted_store"]);
  });

  it("allows the brand's enabled payment providers", () => {
    expect(allowedProviders(undefined, ["vault_gateway_b", "email_list_a", "intent_gateway"])).toEqual(["intent_gateway", "vault_gateway_b"]);
  });

  it("allows all seven when the brand enables no payment provider", () => {
    expect(allowedProviders(undefined, [])).toEqual(PAYMENT_PROVIDERS);
    expect(allowedProviders(undefined, ["email_list_a"])).toEqual(PAYMENT_PROVIDERS);
  });
});

describe("chooseCrm", () => {
  it("records nothing unless recordInCrm is true", () => {
    expect(chooseCrm({ provider: "order_crm_b" })).toBeNull();
    expect(chooseCrm({ recordInCrm: false, crmProvider: "order_crm_b", provider: "intent_gateway" })).toBeNull();
  });

  it("records nothing for crmProvider none", () => {
    expect(chooseCrm({ recordInCrm: true, crmProvider: "none", provider: "order_crm_a" })).toBeNull();
  });

  it("uses the requested CRM", () => {
    expect(chooseCrm({ recordInCrm: true, crmProvider: "cart_gateway", provider: "intent_gateway" })).toBe("cart_gateway");
  });

  it("defaults to the paying provider when it is a CRM, else order_crm_a", () => {
    expect(chooseCrm({ recordInCrm: true, provider: "order_crm_b" })).toBe("order_crm_b");
    expect(chooseCrm({ recordInCrm: true, provider: "cart_gateway" })).toBe("cart_gateway");
    expect(chooseCrm({ recordInCrm: true, provider: "vault_gateway_b" })).toBe("order_crm_a");
  });

  it("reads a boolean setting given as boolean or text", () => {
    expect(isSettingOn(true)).toBe(true);
    expect(isSettingOn("true")).toBe(true);
    expect(isSettingOn("false")).toBe(false);
    expect(isSettingOn(null)).toBe(false);
  });
});
