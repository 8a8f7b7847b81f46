// The API's answers as the pages see them, derived from the server's TypeBox schemas (the same ones
// that validate the responses and write /openapi.json), so a changed member breaks the web type check
// instead of a page. The only place web/ reaches into src/: `import type` is erased by the compiler,
// so no server code reaches the bundle (docs/web.md; test/web/api-types.unit.test.ts guards it).
import type { Static } from "typebox";
import type { AuditLogListReply as AuditLogListReplySchema } from "../../../src/audit/schemas";
import type { CommissionBulkReply as CommissionBulkReplySchema, CommissionListReply as CommissionListReplySchema } from "../../../src/commissions/schemas";
import type {
  CheckoutProvidersResponse as CheckoutProvidersResponseSchema,
  CompleteResponse as CompleteResponseSchema,
  InitializeResponse as InitializeResponseSchema,
  PayResponse as PayResponseSchema,
} from "../../../src/checkout/schemas";
import type { DashboardReply as DashboardReplySchema } from "../../../src/admin/dashboard/schemas";
import type { ApprovalsReply as ApprovalsReplySchema } from "../../../src/orchestration/analytics-schemas";
import type { BrandsReply as BrandsReplySchema, OrganizationsReply as OrganizationsReplySchema, UsersReply as UsersReplySchema } from "../../../src/admin/directory-schemas";
import type { GenerateLinkReply as GenerateLinkReplySchema } from "../../../src/admin/link-schemas";
import type { PaymentLinkReply as PaymentLinkReplySchema, PaymentLinksReply as PaymentLinksReplySchema } from "../../../src/admin/payment-link-schemas";
import type { FunnelStatsReply as FunnelStatsReplySchema, FunnelsReply as FunnelsReplySchema, FunnelView as FunnelViewSchema } from "../../../src/funnels/schemas";
import type { RoutingReply as RoutingReplySchema, RoutingRuleView as RoutingRuleViewSchema, RoutingVersionReply as RoutingVersionReplySchema } from "../../../src/orchestration/schemas";
import type {
  BrandingReply as BrandingReplySchema,
  SettingsReply as SettingsReplySchema,
  UpdateBrandingReply as UpdateBrandingReplySchema,
  UpdateSettingsReply as UpdateSettingsReplySchema,
} from "../../../src/admin/settings/schemas";
import type { AddDomainReply as AddDomainReplySchema, DomainsReply as DomainsReplySchema, UpdateDomainReply as UpdateDomainReplySchema } from "../../../src/domains/schemas";
import type {
  AuthStateReply as AuthStateReplySchema,
  LoginReply as LoginReplySchema,
  MagicLinkReply as MagicLinkReplySchema,
  SocialProvidersReply as SocialProvidersReplySchema,
  TwoFactorSetupReply as TwoFactorSetupReplySchema,
  RecoveryCodesReply as RecoveryCodesReplySchema,
} from "../../../src/identity/schemas";
import type { DisputeReply as DisputeReplySchema } from "../../../src/orders/disputes/schemas";
import type { OrderDetail as OrderDetailSchema, OrderListReply as OrderListReplySchema, RefundReply as RefundReplySchema } from "../../../src/orders/schemas";
import type { ReceiptSettings as ReceiptSettingsSchema } from "../../../src/receipts/schemas";
import type { CartPaymentReply as CartPaymentReplySchema, CreateCartReply as CreateCartReplySchema } from "../../../src/payments/endpoints/cart-gateway-schemas";
import type { ConfirmIntentReply as ConfirmIntentReplySchema } from "../../../src/payments/endpoints/intent-gateway-schemas";
import type { CrmAPaymentReply as CrmAPaymentReplySchema } from "../../../src/payments/endpoints/order-crm-a-schemas";
import type { CrmBPaymentReply as CrmBPaymentReplySchema } from "../../../src/payments/endpoints/order-crm-b-schemas";
import type { CompleteHostedCheckoutReply as CompleteHostedCheckoutReplySchema } from "../../../src/payments/endpoints/hosted-store-schemas";
import type { VaultPaymentReply as VaultPaymentReplySchema } from "../../../src/payments/endpoints/vault-gateway-a-schemas";
import type { ListsReply as ListsReplySchema, UpdateMappingsReply as UpdateMappingsReplySchema } from "../../../src/marketing/schemas";
import type { ListSalespeopleReply as ListSalespeopleReplySchema, PortalStateReply as PortalStateReplySchema } from "../../../src/salespeople/schemas";
import type { ConfirmationReply as ConfirmationReplySchema } from "../../../src/pages/schemas";
import type { AcceptOfferResponse as AcceptOfferResponseSchema, CurrentOfferResponse as CurrentOfferResponseSchema, DeclineOfferResponse as DeclineOfferResponseSchema } from "../../../src/upsell/schemas";
import type {
  CreateEndpointReply as CreateEndpointReplySchema,
  DeliveriesReply as DeliveriesReplySchema,
  EndpointsReply as EndpointsReplySchema,
  SendReply as SendReplySchema,
} from "../../../src/webhooks/schemas";

// Identity and the administration session
export type AuthStateReply = Static<typeof AuthStateReplySchema>;
export type LoginReply = Static<typeof LoginReplySchema>;
export type MagicLinkReply = Static<typeof MagicLinkReplySchema>;
export type SocialProvidersReply = Static<typeof SocialProvidersReplySchema>;
export type TwoFactorSetupReply = Static<typeof TwoFactorSetupReplySchema>;
export type RecoveryCodesReply = Static<typeof RecoveryCodesReplySchema>;

// Directory
export type UsersReply = Static<typeof UsersReplySchema>;
export type OrganizationsReply = Static<typeof OrganizationsReplySchema>;
export type BrandsReply = Static<typeof BrandsReplySchema>;

// Provider endpoints the checkout page drives
export type VaultPaymentReply = Static<typeof VaultPaymentReplySchema>;
export type ConfirmIntentReply = Static<typeof ConfirmIntentReplySchema>;
export type CrmAPaymentReply = Static<typeof CrmAPaymentReplySchema>;
export type CrmBPaymentReply = Static<typeof CrmBPaymentReplySchema>;
export type CompleteHostedCheckoutReply = Static<typeof CompleteHostedCheckoutReplySchema>;
export type CreateCartReply = Static<typeof CreateCartReplySchema>;
export type CartPaymentReply = Static<typeof CartPaymentReplySchema>;

// Orders
export type OrderListReply = Static<typeof OrderListReplySchema>;
export type OrderDetail = Static<typeof OrderDetailSchema>;
export type RefundReply = Static<typeof RefundReplySchema>;
export type DisputeReply = Static<typeof DisputeReplySchema>;

// Sales
export type CommissionListReply = Static<typeof CommissionListReplySchema>;
export type CommissionBulkReply = Static<typeof CommissionBulkReplySchema>;
export type ListSalespeopleReply = Static<typeof ListSalespeopleReplySchema>;
export type GenerateLinkReply = Static<typeof GenerateLinkReplySchema>;
export type PaymentLinkReply = Static<typeof PaymentLinkReplySchema>;
export type PaymentLinksReply = Static<typeof PaymentLinksReplySchema>;
export type PortalStateReply = Static<typeof PortalStateReplySchema>;
export type DashboardReply = Static<typeof DashboardReplySchema>;
export type ApprovalsReply = Static<typeof ApprovalsReplySchema>;

// Settings, webhooks, domains, marketing, audit
export type SettingsReply = Static<typeof SettingsReplySchema>;
export type UpdateSettingsReply = Static<typeof UpdateSettingsReplySchema>;
export type UpdateBrandingReply = Static<typeof UpdateBrandingReplySchema>;
export type ReceiptSettings = Static<typeof ReceiptSettingsSchema>;
export type BrandingReply = Static<typeof BrandingReplySchema>;
export type EndpointsReply = Static<typeof EndpointsReplySchema>;
export type CreateEndpointReply = Static<typeof CreateEndpointReplySchema>;
export type SendReply = Static<typeof SendReplySchema>;
export type DeliveriesReply = Static<typeof DeliveriesReplySchema>;
export type DomainsReply = Static<typeof DomainsReplySchema>;
export type AddDomainReply = Static<typeof AddDomainReplySchema>;
export type UpdateDomainReply = Static<typeof UpdateDomainReplySchema>;
export type ListsReply = Static<typeof ListsReplySchema>;
export type UpdateMappingsReply = Static<typeof UpdateMappingsReplySchema>;
export type AuditLogListReply = Static<typeof AuditLogListReplySchema>;

// Checkout and upsell pages
export type InitializeResponse = Static<typeof InitializeResponseSchema>;
export type CompleteResponse = Static<typeof CompleteResponseSchema>;
export type PayResponse = Static<typeof PayResponseSchema>;
export type CheckoutProvidersResponse = Static<typeof CheckoutProvidersResponseSchema>;
export type CurrentOfferResponse = Static<typeof CurrentOfferResponseSchema>;
export type AcceptOfferResponse = Static<typeof AcceptOfferResponseSchema>;
export type DeclineOfferResponse = Static<typeof DeclineOfferResponseSchema>;
export type ConfirmationReply = Static<typeof ConfirmationReplySchema>;

// Upsell funnels (issue 19)
export type FunnelView = Static<typeof FunnelViewSchema>;
export type FunnelsReply = Static<typeof FunnelsReplySchema>;
export type FunnelStatsReply = Static<typeof FunnelStatsReplySchema>;

// Payment routing rules (issue 34)
export type RoutingReply = Static<typeof RoutingReplySchema>;
export type RoutingRuleView = Static<typeof RoutingRuleViewSchema>;
export type RoutingVersionReply = Static<typeof RoutingVersionReplySchema>;
