// Domain name checks of SPEC "Domains": punycode, length limits, no wildcard or IP, root vs subdomain per the Public Suffix List.
import { describe, expect, it } from "vitest";
import { parseDomainName } from "./domain-name.js";

describe("parseDomainName", () => {
  it.each([
    ["pay.example.com", "pay.example.com", false],
    ["Example.COM", "example.com", true],
    ["  shop.example.com.  ", "shop.example.com", false],
    ["example.co.uk", "example.co.uk", true],
    ["pay.example.co.uk", "pay.example.co.uk", false],
    ["bücher.example", "xn--bcher-kva.example", true],
    ["zahlung.bücher.de", "zahlung.xn--bcher-kva.de", false],
    [`${"a".repeat(63)}.example.com`, `${"a".repeat(63)}.example.com`, false],
  ])("accepts %j as %s (root: %s)", (input, ascii, isRoot) => {
    expect(parseDomainName(input)).toEqual({ ascii, isRoot });
  });

  it.each([undefined, null, "", "   ", 42])("refuses %j with Domain is required", (input) => {
    expect(() => parseDomainName(input)).toThrow("Domain is required");
  });

  it.each([
    "*.example.com",
    "192.168.1.1",
    "[::1]",
    "::1",
    "localhost",
    "co.uk",
    "https://pay.example.com",
    "pay.example.com/checkout",
    "pay.example.com:8443",
    "-pay.example.com",
    "pay-.example.com",
    "pay_x.example.com",
    "pay..example.com",
    "example.123",
    `${"a".repeat(64)}.example.com`,
    `${Array.from({ length: 50 }, () => "abcd").join(".")}.example.com`,
  ])("refuses %j with Invalid domain format", (input) => {
    expect(() => parseDomainName(input)).toThrow("Invalid domain format");
  });
});
