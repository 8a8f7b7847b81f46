import { CRM_PROVIDERS, type CrmProviderType, type PaymentProviderType } from "../providers/types.js";

/** The CRM used when `crmProvider` is omitted and the paying provider is not a CRM itself. */
export const DEFAULT_CRM: CrmProviderType = "order_crm_a";

/**
 * SPEC complete rule 1: which CRM records the order, or null for none. `recordInCrm` must be true and
 * `crmProvider` not `none`. Without `crmProvider`: the paying provider when it is a CRM (the order
 * then lives where it was paid), else order_crm_a (docs/checkout.md).
 */
export function chooseCrm(input: { recordInCrm?: boolean; crmProvider?: CrmProviderType | "none"; provider: PaymentProviderType }): CrmProviderType | null {
  if (input.recordInCrm !== true || input.crmProvider === "none") return null;
  if (input.crmProvider) return input.crmProvider;
  return (CRM_PROVIDERS as readonly string[]).includes(input.provider) ? (input.provider as CrmProviderType) : DEFAULT_CRM;
}

/** A provider setting may hold `true` or the text "true" (settings forms send text). */
export function isSettingOn(value: unknown): boolean {
  return value === true || value === "true";
}
