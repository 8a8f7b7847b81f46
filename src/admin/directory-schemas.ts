import { Type, type Static } from "typebox";

// Wire contract of SPEC.md "Administration: users" and "Administration: organizations and brands".

const Role = Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("member")]);
const BrandRole = Type.Union([Type.Literal("admin"), Type.Literal("member")]);
const Id = Type.String({ minLength: 1, maxLength: 200 });

export const UserView = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), role: Role, createdAt: Type.Number({ description: "Unix ms" }) });
const BrandAccessView = Type.Object({ brandId: Type.String(), role: BrandRole });

export const UserIdParams = Type.Object({ userId: Id });
export const IdParams = Type.Object({ id: Id });

export const UsersReply = Type.Object({ users: Type.Array(UserView), organizationId: Type.String() });
export const UserReply = Type.Object({ user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), role: Role }), brandAccess: Type.Array(BrandAccessView) });

export const CreateUserBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  name: Type.String({ maxLength: 1000 }),
  role: Role,
  brandIds: Type.Array(Id, { maxItems: 500, default: [] }),
});
export type CreateUserBody = Static<typeof CreateUserBody>;

export const CreateUserReply = Type.Object({
  success: Type.Boolean(),
  ...UserView.properties,
  brandAccess: Type.Array(BrandAccessView),
  existingUser: Type.Boolean({ description: "true when the email was registered already: membership added, password and name unchanged" }),
});

export const UpdateUserBody = Type.Object({ role: Role });
export const UserChangeReply = Type.Object({ success: Type.Boolean(), ...UserView.properties });
export const RemoveUserReply = Type.Object({ success: Type.Boolean(), ...UserView.properties, sessionsEnded: Type.Number() });

export const DeletedQuery = Type.Object({
  includeDeleted: Type.Optional(Type.Boolean({ description: "include soft-deleted records" })),
  deletedOnly: Type.Optional(Type.Boolean({ description: "only soft-deleted records" })),
});

const OrganizationView = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), createdAt: Type.Number({ description: "Unix ms" }) });
export const OrganizationsReply = Type.Object({ organizations: Type.Array(OrganizationView), currentOrganizationId: Type.String(), deletedCount: Type.Number() });
const SlugDescription = "URL-safe: lower-case letters, digits, inner hyphens; generated from the name when omitted";
export const CreateTenantBody = Type.Object({ name: Type.String({ maxLength: 1000 }), slug: Type.Optional(Type.String({ maxLength: 200, description: SlugDescription })) });
export type CreateTenantBody = Static<typeof CreateTenantBody>;
export const UpdateBrandBody = Type.Object({ name: Type.String({ maxLength: 1000 }) });
export const OrganizationReply = Type.Object({ success: Type.Boolean(), ...OrganizationView.properties });
export const CreateOrganizationReply = Type.Object({ success: Type.Boolean(), ...OrganizationView.properties, defaultBrandId: Type.String() });

const BrandView = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), organizationId: Type.String() });
export const BrandsReply = Type.Object({
  brands: Type.Array(BrandView),
  currentBrandId: Type.Union([Type.String(), Type.Null()]),
  organizationId: Type.String(),
  deletedCount: Type.Number(),
});
export const BrandReply = Type.Object({ success: Type.Boolean(), ...BrandView.properties });
