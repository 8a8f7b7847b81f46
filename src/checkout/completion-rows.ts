import type { CommissionAmount } from "../commissions/calculate.js";
import { newId } from "../lib/ids.js";
import type { Metadata } from "../lib/metadata.js";
import { checkoutMetadataFields, outboxRows } from "../outbox/events.js";
import type { CrmProviderType } from "../providers/types.js";
import type { CompleteBody, CompleteLineItem, CompleteResponse, SalesAttribution } from "./schemas.js";
import type { Completion, CompletionCandidate } from "./store.js";
import type { VerifiedRecord } from "./verify-payment.js";

/** What a verified completion decided; completionRows turns it into the rows saveCompletion writes. */
export interface CompletionPlan {
  input: CompleteBody;
  candidate: CompletionCandidate;
  record: VerifiedRecord;
  lineItems: CompleteLineItem[];
  attribution: SalesAttribution | undefined;
  commission: CommissionAmount | null;
  crm: { provider: CrmProviderType; canRecord: boolean } | null;
  now: number;
}

/**
 * The answer and every row of one completion (CONTRACT §7): the order with its line items and
 * payment method token (§8), the commission (§13) and the three outbox events.
 */
export function completionRows(plan: CompletionPlan, crmOrderId: string | null): { response: CompleteResponse; completion: Completion } {
  const { input, candidate, record, lineItems, attribution, commission, crm, now } = plan;
  const checkout = candidate.checkout;
  const at = new Date(now);
  const orderRef = newId("ord");
  const commissionId = commission && attribution ? newId("com") : undefined;
  const providerOrderId = record.providerOrderId ?? input.providerOrderId ?? checkout.providerOrderId;
  const response: CompleteResponse = {
    success: true,
    orderId: input.orderId,
    transactionId: input.transactionId,
    paymentMethodToken: record.paymentMethodToken,
    provider: input.provider,
    ...(crmOrderId ? { crmOrderId, crmProvider: crm!.provider } : {}),
    ...(commissionId ? { commissionId } : {}),
  };
  const metadata = metadataOfClaims(checkout.claims);
  const money = { orderId: input.orderId, transactionId: input.transactionId, provider: input.provider, amount: checkout.amountCents, currency: checkout.currency, livemode: checkout.livemode, ...checkoutMetadataFields(metadata) };
  const common = { brandId: checkout.brandId, checkoutId: checkout.id, webhookUrl: checkout.webhookUrl };
  const completion: Completion = {
    checkoutId: checkout.id,
    at,
    order: {
      id: orderRef,
      brandId: checkout.brandId,
      kind: "checkout",
      checkoutId: checkout.id,
      orderId: input.orderId,
      transactionId: input.transactionId,
      provider: input.provider,
      providerOrderId,
      amountCents: checkout.amountCents,
      currency: checkout.currency,
      customerEmail: input.customerEmail,
      customerName: input.customerName,
      customer: input.customer ?? checkout.customer,
      billingAddress: input.billingAddress ?? checkout.billingAddress,
      shippingAddress: input.shippingAddress ?? checkout.shippingAddress,
      paymentMethodToken: record.paymentMethodToken,
      paidInDemo: record.paidInDemo,
      // The checkout's mode (issue 33), which also chose the adapter that verified the payment.
      livemode: checkout.livemode,
      crmProvider: crm?.provider ?? null,
      crmOrderId,
      crmStatus: crm === null ? null : crmOrderId ? "recorded" : crm.canRecord ? "failed" : "skipped",
      crmCampaignId: input.crmCampaignId ?? null,
      affId: input.affId ?? null,
      subId: input.subId ?? null,
      result: response,
      createdAt: at,
      metadata,
    },
    lineItems: lineItems.map((item) => ({
      id: newId("oli"),
      orderRef,
      itemId: item.id,
      name: item.name ?? null,
      quantity: item.quantity,
      unitPriceCents: item.unitPrice,
      sku: item.sku ?? null,
    })),
    commission: commission && attribution && commissionId ? commissionRow(commissionId, candidate, orderRef, input.orderId, attribution, commission, checkout.livemode, at) : null,
    events: outboxRows(now, [
      { ...common, type: "checkout.completed", data: { checkoutId: checkout.id, ...money, customerEmail: input.customerEmail } },
      { ...common, type: "payment.succeeded", data: { ...money, providerOrderId } },
      {
        ...common,
        type: "order.confirmed",
        data: { ...money, customerEmail: input.customerEmail, customerName: input.customerName, lineItems, crmOrderId, commissionId: commissionId ?? null },
      },
    ]),
  };
  return { response, completion };
}

function commissionRow(
  id: string,
  candidate: CompletionCandidate,
  orderRef: string,
  orderId: string,
  attribution: SalesAttribution,
  commission: CommissionAmount,
  livemode: boolean,
  at: Date,
) {
  return {
    id,
    organizationId: candidate.organizationId,
    brandId: candidate.checkout.brandId,
    orderRef,
    orderId,
    salespersonId: attribution.salespersonId,
    salespersonName: attribution.salespersonName ?? null,
    salespersonEmail: attribution.salespersonEmail ?? null,
    teamId: attribution.teamId ?? null,
    teamName: attribution.teamName ?? null,
    source: attribution.source ?? null,
    campaignCode: attribution.campaignCode ?? null,
    orderAmountCents: candidate.checkout.amountCents,
    commissionAmountCents: commission.commissionAmountCents,
    currency: candidate.checkout.currency,
    commissionRate: commission.commissionRate,
    commissionType: commission.commissionType,
    status: "pending" as const,
    livemode,
    createdAt: at,
    updatedAt: at,
  };
}

/** The checkout's metadata: its token's claim, checked by verifyCheckoutToken when the checkout was initialized. */
export function metadataOfClaims(claims: Record<string, unknown>): Metadata {
  const metadata = claims.metadata;
  return typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) ? (metadata as Metadata) : {};
}
