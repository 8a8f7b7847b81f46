// The whole buyer journey as one autocannon scenario: initialize → card payment at the provider
// endpoint → complete → upsell create-session → accept. Each connection runs flows back to back
// (or, with `rate`, at a fixed overall request rate); a step's answer feeds the next step's body
// through autocannon's per-connection context. A failed step ends that flow and starts the next.
import http from "node:http";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { timeToLastAnswer } from "./load.mjs";
import {
  PROVIDER,
  SERVICE_PATHS,
  UPSELL_OFFERS,
  completeBody,
  createSessionBody,
  initializeBody,
  newOrder,
  paymentBody,
  signCheckoutToken,
} from "./checkout-flow.mjs";

export const FLOW_STEPS = ["initialize", "pay", "complete", "createSession", "accept"];

/** `count` new orders with their signed tokens (signing is async, so it happens before the run). */
export async function prepareFlows({ secret, count }) {
  const pool = [];
  for (let i = 0; i < count; i++) {
    const order = newOrder();
    pool.push({ order, body: JSON.stringify(initializeBody(order, await signCheckoutToken(order, secret))) });
  }
  return pool;
}

/** The bodies of steps 2-5 from the context the earlier answers filled in. */
const NEXT_BODY = {
  pay: (ctx) => paymentBody(ctx.order),
  complete: (ctx) => completeBody(ctx.order, ctx.initialize, ctx.pay),
  createSession: (ctx) => createSessionBody({ orderId: ctx.order.orderId, email: ctx.order.email, paymentMethodToken: ctx.complete.paymentMethodToken }),
  accept: (ctx) => ({ sessionId: ctx.createSession.sessionId, offerId: UPSELL_OFFERS[0].id }),
};

/**
 * A `fire` for measuredRun: runs flows from `pool` over `urls` until the pool is used up (or `capS`),
 * and returns, besides autocannon's per-request figures, the flows per second and the end-to-end flow
 * latency (first request sent to last answer received, including time queued behind other flows).
 */
export async function fireFlows({ urls, pool, connections, rate = null, capS }) {
  if (rate) return flowsAtRate({ urls, pool, rate });
  let next = 0;
  let overrun = 0;
  const flowMs = [];
  const failedAt = {};
  const refused = [];
  const headers = { "content-type": "application/json" };
  const requests = FLOW_STEPS.map((step, index) => ({
    method: "POST",
    path: step === "pay" ? `/api/providers/${PROVIDER}/process-payment` : SERVICE_PATHS[step],
    headers,
    setupRequest(req, ctx) {
      if (index === 0) {
        // A new checkout refused as overload left nothing behind: its buyer tries the same order again
        // (autocannon clears ctx between flows, so the refused orders wait in a list of the run's).
        let item = refused.shift();
        if (!item) {
          if (next >= pool.length) overrun++;
          item = pool[Math.min(next++, pool.length - 1)];
        }
        ctx.item = item;
        ctx.order = item.order;
        ctx.started = performance.now();
        req.body = item.body;
        return req;
      }
      if (ctx.failed) return null; // back to step 1 with a new order
      // The previous step got no answer (autocannon's 10-s timeout, on an overloaded host): that flow
      // ends here, counted, instead of building this step from an answer that never came.
      const previous = FLOW_STEPS[index - 1];
      if (ctx[previous] === undefined) {
        const key = `${previous} no answer`;
        failedAt[key] = (failedAt[key] ?? 0) + 1;
        return null;
      }
      req.body = JSON.stringify(NEXT_BODY[step](ctx));
      return req;
    },
    onResponse(status, body, ctx) {
      if (status !== 200) {
        ctx.failed = true;
        if (index === 0 && status === 503) refused.push(ctx.item);
        const key = `${step} ${status}`;
        failedAt[key] = (failedAt[key] ?? 0) + 1;
        return;
      }
      if (index === FLOW_STEPS.length - 1) flowMs.push(performance.now() - ctx.started);
      else ctx[step] = JSON.parse(body);
    },
  }));
  // Every connection gets whole flows: autocannon splits `amount` evenly over the connections. A
  // fifth of the pool stays spare: a failed flow ends early and its connection takes a new order.
  const perConnection = Math.max(1, Math.floor((pool.length * 0.8) / connections));
  const instance = autocannon({
    url: urls,
    connections,
    amount: perConnection * connections * FLOW_STEPS.length,
    requests,
    timeout: 10,
  });
  const elapsed = timeToLastAnswer(instance);
  const cap = capS ? setTimeout(() => instance.stop(), capS * 1000) : null;
  const result = await instance;
  if (cap) clearTimeout(cap);
  const elapsedS = elapsed();
  flowMs.sort((a, b) => a - b);
  const at = (q) => (flowMs.length ? flowMs[Math.min(flowMs.length - 1, Math.floor(q * flowMs.length))] : null);
  return {
    result,
    overrun,
    elapsedS,
    extra: {
      flows: flowMs.length,
      flowsPerS: flowMs.length / elapsedS,
      flowP50: at(0.5),
      flowP99: at(0.99),
      failedFlows: Object.values(failedAt).reduce((a, b) => a + b, 0),
      failedAt: JSON.stringify(failedAt),
    },
  };
}

const STEP_PATH = (step) => (step === "pay" ? `/api/providers/${PROVIDER}/process-payment` : SERVICE_PATHS[step]);

/** One POST over a keep-alive agent: status, body and the time it took. */
function post(agent, url, path, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const request = http.request(url + path, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
      response.on("error", () => resolve({ status: 0, body: "", ms: performance.now() - started }));
    });
    request.on("error", () => resolve({ status: 0, body: "", ms: performance.now() - started }));
    request.end(body);
  });
}

/**
 * One buyer's five steps back to back over `agent`, each answer fed to `onAnswer(step, answer)`;
 * stops at the first answer that is not 200. Resolves with whether the whole flow succeeded.
 */
export async function runFlow(agent, url, item, onAnswer) {
  const ctx = { order: item.order };
  for (const step of FLOW_STEPS) {
    const answer = await post(agent, url, STEP_PATH(step), step === "initialize" ? item.body : JSON.stringify(NEXT_BODY[step](ctx)));
    onAnswer(step, answer);
    if (answer.status !== 200) return false;
    ctx[step] = JSON.parse(answer.body);
  }
  return true;
}

const percentileOf = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

/**
 * Open-loop arrivals: a new buyer starts a flow every 1/rate seconds whatever the service's
 * latency (a closed loop, or autocannon's per-second rate buckets, would slow the arrivals down or
 * bunch them at each second's start and hide the queueing), each buyer running the five steps back
 * to back, the buyers spread round-robin over `urls`. Returns the fields measuredRun reads.
 */
async function flowsAtRate({ urls, pool, rate }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const requestMs = [];
  const flowMs = [];
  const failedAt = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const flow = async (item, url) => {
    const started = performance.now();
    const done = await runFlow(agent, url, item, (step, answer) => {
      requestMs.push(answer.ms);
      if (answer.status === 200) ok++;
      else {
        if (answer.status === 0) errors++;
        else non2xx++;
        const key = `${step} ${answer.status || "connection error"}`;
        failedAt[key] = (failedAt[key] ?? 0) + 1;
      }
    });
    if (done) flowMs.push(performance.now() - started);
  };
  const started = performance.now();
  const running = [];
  // Arrivals on a fixed schedule: each tick starts every flow whose start time has come.
  await new Promise((resolve) => {
    let next = 0;
    const tick = setInterval(() => {
      const due = Math.min(pool.length, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
      for (; next < due; next++) running.push(flow(pool[next], urls[next % urls.length]));
      if (next >= pool.length) {
        clearInterval(tick);
        resolve();
      }
    }, 2);
  });
  await Promise.all(running);
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  requestMs.sort((a, b) => a - b);
  flowMs.sort((a, b) => a - b);
  const round = (v) => (v === null ? null : Math.round(v));
  return {
    result: {
      requests: { total: requestMs.length },
      duration: elapsedS,
      latency: { p50: round(percentileOf(requestMs, 0.5)), p99: round(percentileOf(requestMs, 0.99)) },
      "2xx": ok,
      non2xx,
      errors,
      timeouts: 0,
    },
    overrun: 0,
    elapsedS,
    extra: {
      flows: flowMs.length,
      flowsPerS: flowMs.length / elapsedS,
      offeredFlowsPerS: rate,
      flowP50: percentileOf(flowMs, 0.5),
      flowP99: percentileOf(flowMs, 0.99),
      failedFlows: Object.values(failedAt).reduce((a, b) => a + b, 0),
      failedAt: JSON.stringify(failedAt),
    },
  };
}
