import { Type } from "typebox";
import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { AppError } from "../../lib/errors.js";
import { escapeHtml } from "../../lib/html.js";
import { formatMoney } from "../../lib/money.js";
import { htmlAnswer, registerDemoPages, sendGone, sendPage } from "../demo-pages.js";
import { tagsOf } from "../endpoints/route-options.js";
import { findDemoDraft, payDemoDraft, returnLocation, safeReturnPath } from "./checkout.js";
import { PROVIDER, type DemoDraft } from "../../providers/hosted-store/provider.js";

const DraftParams = Type.Object({ storeOrderId: Type.String({ minLength: 1, maxLength: 255 }) });
const DraftQuery = Type.Object({ return_url: Type.Optional(Type.String({ maxLength: 4096 })) });
const PayForm = Type.Object({
  cardNumber: Type.String({ maxLength: 64 }),
  cardExp: Type.String({ maxLength: 16 }),
  cardCvv: Type.String({ maxLength: 8 }),
  return_url: Type.Optional(Type.String({ maxLength: 4096 })),
});

const GONE = "This store checkout is unknown. Go back to the shop's checkout page.";

/** Sentences for what the buyer can fix on the demo store's page. */
function sentenceOf(error: AppError): string {
  if (error.code === "PAYMENT_FAILED") return error.details === "insufficient_funds" ? "Your card has insufficient funds. Try another card." : "Your card was declined. Try another card.";
  if (error.code === "TOO_MANY_DECLINES") return "Too many declined payments for this order. Try again later.";
  if (error.code === "VALIDATION_ERROR") {
    if (error.details === "amount" || error.details === "currency") return "This order's total is not the checkout's any more. Go back to the shop's checkout page.";
    if (error.details === "cardNumber") return "Enter a valid card number.";
    if (error.details === "cardCvv") return "Enter the 3 or 4 digit security code.";
    return error.message.includes("expired") ? "The card has expired." : "Enter the expiry date as MM / YY.";
  }
  if (error.code === "ALREADY_PAID" || error.code === "CONFLICT") return "This order is already paid.";
  return "The payment could not be made. Try again.";
}

function storePage(draft: DemoDraft, action: string, returnUrl: string, problem?: string): string {
  const price = escapeHtml(formatMoney(draft.amountCents, draft.currency));
  return `<p class="muted">Demo store · hosted checkout (demo mode: no money moves)</p>
<h1>Pay your order</h1>
<p>Order total <span class="amount" data-testid="store-amount">${price}</span></p>
${problem ? `<p class="error" role="alert" id="store-error">${escapeHtml(problem)}</p>` : ""}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="return_url" value="${escapeHtml(returnUrl)}">
<label for="cardNumber">Card number</label><input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required${problem ? ' aria-describedby="store-error"' : ""}>
<div class="row"><div><label for="cardExp">Expiry (MM / YY)</label><input id="cardExp" name="cardExp" inputmode="numeric" autocomplete="cc-exp" placeholder="MM / YY" required></div>
<div><label for="cardCvv">Security code</label><input id="cardCvv" name="cardCvv" inputmode="numeric" autocomplete="cc-csc" required></div></div>
<button type="submit">Pay ${price}</button>
</form>
<p class="muted">Demo mode: card 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.</p>`;
}

/** "MM / YY", "MM/YYYY", "MMYY": month and year as the card fields take them. */
function expiryOf(typed: string): { cardExpMonth: string; cardExpYear: string } {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(typed);
  return match ? { cardExpMonth: match[1]!, cardExpYear: match[2]! } : { cardExpMonth: "", cardExpYear: "" };
}

/** The demo store's checkout page of a draft order (docs/providers.md "hosted_store"). */
export function registerHostedStoreDemoRoutes(app: App, deps: Deps): void {
  registerDemoPages(app, (pages) => {
    const tags = tagsOf(PROVIDER);
    pages.get(
      "/demo/hosted-store/:storeOrderId",
      {
        schema: {
          tags,
          summary: "Demo store's checkout page of a draft order (demo mode; not in SPEC)",
          params: DraftParams,
          querystring: DraftQuery,
          response: { 200: htmlAnswer("The page"), 303: Type.Null({ description: "Paid already: back to the checkout page" }), 404: htmlAnswer("Unknown draft order") },
        },
      },
      async (request, reply) => {
        const draft = await findDemoDraft(ctxOf(deps, request), request.params.storeOrderId);
        if (!draft) return sendGone(reply, GONE);
        const returnUrl = safeReturnPath(request.query.return_url);
        if (draft.status !== "pending") return reply.redirect(returnLocation(returnUrl, draft.storeOrderId), 303);
        return sendPage(reply, 200, "Demo store checkout", storePage(draft, request.url.split("?")[0]!, returnUrl));
      },
    );

    pages.post(
      "/demo/hosted-store/:storeOrderId",
      {
        schema: {
          tags,
          summary: "Pay a draft order on the demo store's checkout page and return to the checkout (demo mode; not in SPEC)",
          params: DraftParams,
          body: PayForm,
          response: {
            303: Type.Null({ description: "Paid: back to the checkout page with storeOrderId" }),
            // The page for a card to correct, or the contract's JSON error for a malformed form.
            400: Type.Union([htmlAnswer("The page with what to correct"), errorResponses(400)[400]!]),
            402: htmlAnswer("The page with the decline"),
            404: htmlAnswer("Unknown draft order"),
            409: htmlAnswer("The page: already paid"),
            429: htmlAnswer("The page: too many declines"),
          },
        },
      },
      async (request, reply) => {
        const ctx = ctxOf(deps, request);
        const draft = await findDemoDraft(ctx, request.params.storeOrderId);
        if (!draft) return sendGone(reply, GONE);
        const returnUrl = safeReturnPath(request.body.return_url);
        const { cardNumber, cardCvv } = request.body;
        try {
          await payDemoDraft(ctx, draft, { cardNumber, cardCvv, ...expiryOf(request.body.cardExp) });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const status = ({ PAYMENT_FAILED: 402, TOO_MANY_DECLINES: 429, ALREADY_PAID: 409, CONFLICT: 409 } as Record<string, number>)[error.code] ?? 400;
          return sendPage(reply, status, "Demo store checkout", storePage(draft, request.url.split("?")[0]!, returnUrl, sentenceOf(error)));
        }
        return reply.redirect(returnLocation(returnUrl, draft.storeOrderId), 303);
      },
    );
  });
}
