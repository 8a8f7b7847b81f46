import { Type, type Static } from "typebox";

// `domain` is optional in the schemas so a missing one answers SPEC's `Domain is required`, not a validation error.
const DomainInput = Type.Optional(Type.String({ maxLength: 1024, description: "Host name, e.g. pay.example.com; internationalised names are stored in punycode" }));

export const Verification = Type.Union([
  Type.Object({ type: Type.Literal("TXT"), domain: Type.String({ description: "record host" }), value: Type.String({ description: "record value" }) }),
  Type.Null(),
]);

export const DomainView = Type.Object({
  domain: Type.String(),
  brandId: Type.String(),
  verified: Type.Boolean(),
  primary: Type.Boolean(),
  createdAt: Type.Number({ description: "Unix ms" }),
  verification: Verification,
  dnsInstructions: Type.Array(Type.String(), { description: "One line per DNS record to create (type, host, value); empty when verified" }),
});
export type DomainView = Static<typeof DomainView>;

export const DomainsReply = Type.Object({ success: Type.Literal(true), domains: Type.Array(DomainView), configured: Type.Boolean() });
export type DomainsReply = Static<typeof DomainsReply>;

export const AddDomainBody = Type.Object({ domain: DomainInput, primary: Type.Optional(Type.Boolean()) });
export type AddDomainBody = Static<typeof AddDomainBody>;
export const AddDomainReply = Type.Object({ success: Type.Literal(true), domain: DomainView });

/** Rule 5's answer (409): `success: false`, `Domain already exists`, the existing domain's records. */
export const DomainExistsReply = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  code: Type.String(),
  details: Type.Optional(Type.String()),
  verification: Verification,
  dnsInstructions: Type.Array(Type.String()),
});

export const DomainQuery = Type.Object({ domain: DomainInput });

export const UpdateDomainBody = Type.Object({
  domain: DomainInput,
  action: Type.Union([Type.Literal("verify"), Type.Literal("setPrimary")]),
  primary: Type.Optional(Type.Boolean({ description: "setPrimary: true (default) makes it the brand's only primary domain, false clears it" })),
});
export type UpdateDomainBody = Static<typeof UpdateDomainBody>;

const DnsConfig = Type.Object({
  configuredBy: Type.Union([Type.Literal("A"), Type.Literal("CNAME"), Type.Literal("http"), Type.Null()]),
  acceptedChallenges: Type.Array(Type.String()),
});

export const VerifyReply = Type.Union([
  Type.Object({ success: Type.Literal(true), verified: Type.Literal(true), config: DnsConfig }),
  Type.Object({ success: Type.Literal(true), verified: Type.Literal(false), error: Type.String(), dnsInstructions: Type.Array(Type.String()) }),
]);
export type VerifyReply = Static<typeof VerifyReply>;

export const UpdateDomainReply = Type.Union([VerifyReply, Type.Object({ success: Type.Literal(true) })]);
export const SuccessReply = Type.Object({ success: Type.Literal(true) });
