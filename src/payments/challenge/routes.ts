import { Type } from "typebox";
import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import type { App } from "../../http/types.js";
import { AppError } from "../../lib/errors.js";
import { escapeHtml } from "../../lib/html.js";
import { formatMoney } from "../../lib/money.js";
import { htmlAnswer, registerDemoPages, sendGone, sendPage } from "../demo-pages.js";
import { tagsOf } from "../endpoints/route-options.js";
import { answerChallenge, findChallenge } from "./challenge.js";
import { PROVIDER } from "../../providers/intent-gateway/provider.js";

const ChallengeParams = Type.Object({
  paymentIntentId: Type.String({ minLength: 1, maxLength: 255 }),
  challenge: Type.String({ minLength: 1, maxLength: 255 }),
});
const ChallengeForm = Type.Object({ outcome: Type.Union([Type.Literal("approve"), Type.Literal("fail")]) });

const GONE = "This authentication request is unknown or was already answered. Go back to the shop's checkout page.";

/** The demo bank's 3-D Secure page (docs/providers.md "3-D Secure"): Approve / Fail, like a test-mode bank page. */
export function registerIntentGatewayChallengeRoutes(app: App, deps: Deps): void {
  registerDemoPages(app, (pages) => {
    const tags = tagsOf(PROVIDER);
    pages.get(
      "/demo/intent-gateway/3ds/:paymentIntentId/:challenge",
      { schema: { tags, summary: "Demo bank's 3-D Secure page of a payment intent (demo mode; not in SPEC)", params: ChallengeParams, response: { 200: htmlAnswer("The page"), 404: htmlAnswer("Unknown challenge") } } },
      async (request, reply) => {
        const open = await findChallenge(ctxOf(deps, request), request.params);
        if (!open || open.intent.status !== "requires_action") return sendGone(reply, GONE);
        const action = escapeHtml(request.url.split("?")[0]!);
        return sendPage(
          reply,
          200,
          "Confirm your payment",
          `<p class="muted">Test bank · 3-D Secure (demo mode: no bank is asked)</p>
<h1>Confirm your payment</h1>
<p>Your bank asks you to confirm a payment of <span class="amount" data-testid="challenge-amount">${escapeHtml(formatMoney(open.intent.amountCents, open.intent.currency))}</span>.</p>
<div class="row"><form method="post" action="${action}"><input type="hidden" name="outcome" value="approve"><button type="submit">Approve</button></form>
<form method="post" action="${action}"><input type="hidden" name="outcome" value="fail"><button type="submit" class="secondary">Fail</button></form></div>`,
        );
      },
    );

    pages.post(
      "/demo/intent-gateway/3ds/:paymentIntentId/:challenge",
      {
        schema: {
          tags,
          summary: "Answer the demo bank's 3-D Secure challenge (approve or fail, once) and return to the checkout (demo mode; not in SPEC)",
          params: ChallengeParams,
          body: ChallengeForm,
          response: { 303: Type.Null({ description: "Back to the checkout page with payment_intent and redirect_status" }), 404: htmlAnswer("Unknown challenge"), 409: htmlAnswer("The order is paid already") },
        },
      },
      async (request, reply) => {
        try {
          const answered = await answerChallenge(ctxOf(deps, request), { ...request.params, outcome: request.body.outcome });
          if (!answered) return sendGone(reply, GONE);
          return reply.redirect(answered.location, 303);
        } catch (error) {
          if (error instanceof AppError && error.code === "ALREADY_PAID") return sendPage(reply, 409, "Already paid", `<h1>This order is already paid</h1><p>Nothing more was charged.</p>`);
          throw error;
        }
      },
    );
  });
}
