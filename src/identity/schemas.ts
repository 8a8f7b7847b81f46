import { Type, type Static } from "typebox";

// Wire contract of SPEC.md "User authentication" and "Administration: authentication and tenancy".
// Generous maxLengths bound the work (argon2 input, lookups) without replacing the verbs' own rules.

export const RegisterBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  email: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  orgName: Type.String({ maxLength: 1000 }),
});
export type RegisterBody = Static<typeof RegisterBody>;

export const SuccessReply = Type.Object({ success: Type.Boolean() });

export const LoginBody = Type.Object({ email: Type.String({ maxLength: 1000 }), password: Type.String({ maxLength: 1000 }) });
export type LoginBody = Static<typeof LoginBody>;

export const LoginReply = Type.Object({
  success: Type.Boolean(),
  session: Type.Optional(Type.Object({ userId: Type.String(), email: Type.String(), name: Type.String(), role: Type.String() })),
  requires2FA: Type.Optional(Type.Boolean()),
  userId: Type.Optional(Type.String()),
});

const TenantRef = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() });

export const AuthStateReply = Type.Object({
  authenticated: Type.Boolean(),
  session: Type.Object({
    userId: Type.String(),
    organizationId: Type.Union([Type.String(), Type.Null()]),
    brandId: Type.Union([Type.String(), Type.Null()]),
    email: Type.String(),
    name: Type.String(),
    role: Type.Union([Type.String(), Type.Null()]),
  }),
  organizations: Type.Array(TenantRef),
  brands: Type.Array(TenantRef),
});

export const SwitchOrgBody = Type.Object({ organizationId: Type.String({ minLength: 1, maxLength: 200 }) });
export const SwitchBrandBody = Type.Object({ brandId: Type.String({ minLength: 1, maxLength: 200 }) });
export const SwitchReply = Type.Object({ success: Type.Boolean(), organizationId: Type.String(), brandId: Type.Union([Type.String(), Type.Null()]) });

export const TwoFactorSetupReply = Type.Object({
  enabled: Type.Boolean(),
  secret: Type.Optional(Type.String()),
  otpauth_url: Type.Optional(Type.String()),
  qrCode: Type.Optional(Type.String({ description: "PNG data URL of otpauth_url" })),
  recoveryCodesLeft: Type.Optional(Type.Integer({ description: "not in SPEC: unused recovery codes, when 2FA is on" })),
});
export const RecoveryCodesReply = Type.Object({
  success: Type.Boolean(),
  recoveryCodes: Type.Array(Type.String(), { description: "not in SPEC: ten single-use recovery codes, shown this once" }),
});
export const TwoFactorCodeBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 50, description: "a current TOTP code (or, to turn 2FA off, a recovery code)" }) });
export const TwoFactorConfirmBody = Type.Object({ secret: Type.String({ maxLength: 200 }), token: Type.String({ maxLength: 50 }) });
// Members optional here: the verb answers SPEC's `Missing fields` itself, after nothing else.
export const TwoFactorVerifyBody = Type.Object({ userId: Type.Optional(Type.String({ maxLength: 200 })), token: Type.Optional(Type.String({ maxLength: 50 })) });

export const MagicLinkBody = Type.Object({ email: Type.String({ maxLength: 1000 }) });
export const MagicLinkReply = Type.Object({ success: Type.Boolean(), message: Type.String() });
export const MagicLinkVerifyQuery = Type.Object({ token: Type.Optional(Type.String()) });

/** GET /api/auth/social-providers (not in SPEC; docs/web.md): which sign-in buttons the login page shows. */
export const SocialProvidersReply = Type.Object({ social_a: Type.Boolean(), social_b: Type.Boolean() });
