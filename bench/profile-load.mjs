// Load for a CPU profile of initialize (docs/performance.md): 20 connections, 10 s, fresh tokens.
import autocannon from "autocannon";
import { SignJWT } from "jose";
const secret = new TextEncoder().encode("bench-checkout-token-secret-0123456789abcdef");
const now = Math.floor(Date.now() / 1000);
const tokens = [];
for (let i = 0; i < 6000; i++) tokens.push(await new SignJWT({ orderId: `prof-${i}-${Math.random()}`, amount: 4999, currency: "USD", productName: "Kit" }).setProtectedHeader({ alg: "HS256" }).setIssuedAt(now).setExpirationTime(now + 3600).sign(secret));
let i = 0;
const r = await autocannon({ url: "http://127.0.0.1:3999/api/checkout/initialize", connections: 20, duration: 10, method: "POST", headers: { "content-type": "application/json" },
  setupClient: (c) => c.setBody(JSON.stringify({ token: tokens[i++ % tokens.length], provider: "vault_gateway_b" })),
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ token: tokens[i++ % tokens.length], provider: "vault_gateway_b" }) }) }] });
console.log(r.requests.average, "req/s", r.non2xx, "non2xx");
