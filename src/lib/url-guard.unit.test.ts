// The SSRF guard's address classification (webhooks and every outgoing URL taken from settings): private, loopback, link-local, metadata, multicast and
// mapped forms are refused; public addresses pass; names are resolved and every address checked.
import { describe, expect, it } from "vitest";
import { checkOutgoingUrl, refusalOf, UrlRefused } from "./url-guard.js";

describe("refusalOf", () => {
  it("refuses loopback, private, link-local, metadata, CGNAT, benchmarking, documentation, multicast, reserved and their IPv6 and mapped forms", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fd00:ec2::254", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "192.0.2.2", "198.51.100.7", "203.0.113.9", "198.18.0.1", "198.19.255.254", "100.64.0.1", "100.127.255.254", "192.88.99.1", "239.255.255.250", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "0:0:0:0:0:ffff:127.0.0.1", "::ffff:0:7f00:1", "::127.0.0.1", "2002:7f00:1::1", "2001::1", "2001:2::1", "3fff::1", "100::1", "64:ff9b:1::1", "2001:db8::1"]) {
      expect(refusalOf(address), address).not.toBeNull();
    }
  });

  it("lets public addresses through", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "::ffff:808:808", "192.0.3.1", "198.20.0.1", "100.128.0.1", "203.0.114.1"]) {
      expect(refusalOf(address), address).toBeNull();
    }
  });
});

describe("checkOutgoingUrl", () => {
  it("refuses other schemes, literal private hosts and names resolving to loopback, unless private URLs are allowed", async () => {
    await expect(checkOutgoingUrl("ftp://93.184.215.14/", false)).rejects.toThrow(UrlRefused);
    await expect(checkOutgoingUrl("http://[::1]:80/", false)).rejects.toThrow(UrlRefused);
    await expect(checkOutgoingUrl("http://localhost:8080/hook", false)).rejects.toThrow(/localhost resolves to/);
    await expect(checkOutgoingUrl("http://localhost:8080/hook", true)).resolves.toBeInstanceOf(URL);
    await expect(checkOutgoingUrl("https://93.184.215.14/hook", false)).resolves.toBeInstanceOf(URL);
  });
});
