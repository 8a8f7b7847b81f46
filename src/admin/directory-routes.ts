import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createBrand, deleteBrand, listBrands, renameBrand, restoreBrand } from "./brands.js";
import {
  BrandReply,
  BrandsReply,
  CreateOrganizationReply,
  CreateTenantBody,
  CreateUserBody,
  CreateUserReply,
  DeletedQuery,
  IdParams,
  OrganizationReply,
  OrganizationsReply,
  RemoveUserReply,
  UpdateBrandBody,
  UpdateUserBody,
  UserChangeReply,
  UserIdParams,
  UserReply,
  UsersReply,
} from "./directory-schemas.js";
import { createOrganization, deleteOrganization, listOrganizations, restoreOrganization } from "./organizations.js";
import { createUser, getUser, listUsers, removeUser, updateUserRole } from "./users.js";

const USERS = ["Administration: users"];
const TENANTS = ["Administration: organizations and brands"];

/** Users, organizations and brands administration (SPEC "Administration: users", "… organizations and brands"). */
export function registerDirectoryRoutes(app: App, deps: Deps): void {
  registerUserRoutes(app, deps);
  registerOrganizationRoutes(app, deps);
  registerBrandRoutes(app, deps);
}

// Each verb asserts the role it needs (src/http/auth.ts); the summaries name it for the OpenAPI reader.

function registerUserRoutes(app: App, deps: Deps): void {
  app.get("/api/admin/users", { schema: { tags: USERS, summary: "Users of the session's organization (admin or owner)", response: { 200: UsersReply, ...errorResponses(401, 403) } } }, async (request) =>
    listUsers({ ctx: callerCtx(deps, request) }),
  );

  app.post(
    "/api/admin/users",
    {
      // CONTRACT §17: administration creates honour Idempotency-Key.
      config: { idempotent: true },
      schema: {
        tags: USERS,
        summary: "Add a user with access to brandIds (admin or owner; only an owner adds an owner)",
        body: CreateUserBody,
        response: { 200: CreateUserReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true, ...(await createUser({ ctx: callerCtx(deps, request), input: request.body })) }),
  );

  app.get(
    "/api/admin/users/:userId",
    { schema: { tags: USERS, summary: "A user of the session's organization with brandAccess (any role)", params: UserIdParams, response: { 200: UserReply, ...errorResponses(401, 403, 404) } } },
    async (request) => getUser({ ctx: callerCtx(deps, request), input: request.params }),
  );

  app.put(
    "/api/admin/users/:userId",
    {
      schema: {
        tags: USERS,
        summary: "Change a user's role (admin or owner; only an owner grants or changes owner; the last owner stays)",
        params: UserIdParams,
        body: UpdateUserBody,
        response: { 200: UserChangeReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ success: true, ...(await updateUserRole({ ctx: callerCtx(deps, request), input: { userId: request.params.userId, role: request.body.role } })) }),
  );

  app.delete(
    "/api/admin/users/:userId",
    {
      schema: {
        tags: USERS,
        summary: "Remove a user from the organization and end their sessions there (owner; the last owner stays)",
        params: UserIdParams,
        response: { 200: RemoveUserReply, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => ({ success: true, ...(await removeUser({ ctx: callerCtx(deps, request), input: request.params })) }),
  );

}

function registerOrganizationRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/organizations",
    { schema: { tags: TENANTS, summary: "The caller's organizations (owner)", querystring: DeletedQuery, response: { 200: OrganizationsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listOrganizations({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.post(
    "/api/admin/organizations",
    {
      // CONTRACT §17: administration creates honour Idempotency-Key.
      config: { idempotent: true },
      schema: {
        tags: TENANTS,
        summary: "Create an organization with a default brand; the caller becomes its owner (owner)",
        body: CreateTenantBody,
        response: { 200: CreateOrganizationReply, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request) => ({ success: true, ...(await createOrganization({ ctx: callerCtx(deps, request), input: request.body })) }),
  );

  app.delete(
    "/api/admin/organizations/:id",
    {
      schema: {
        tags: TENANTS,
        summary: "Soft-delete an organization the caller owns (not the session's current one); its sessions end",
        params: IdParams,
        response: { 200: OrganizationReply, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => ({ success: true, ...(await deleteOrganization({ ctx: callerCtx(deps, request), input: { organizationId: request.params.id } })) }),
  );

  app.post(
    "/api/admin/organizations/:id/restore",
    { schema: { tags: TENANTS, summary: "Restore a soft-deleted organization the caller owns", params: IdParams, response: { 200: OrganizationReply, ...errorResponses(401, 403, 404) } } },
    async (request) => ({ success: true, ...(await restoreOrganization({ ctx: callerCtx(deps, request), input: { organizationId: request.params.id } })) }),
  );

}

function registerBrandRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/brands",
    {
      schema: {
        tags: TENANTS,
        summary: "Brands of the session's organization (members: their brands; deleted ones for owners only)",
        querystring: DeletedQuery,
        response: { 200: BrandsReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listBrands({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.post(
    "/api/admin/brands",
    {
      config: { idempotent: true },
      schema: { tags: TENANTS, summary: "Create a brand in the session's organization (admin or owner)", body: CreateTenantBody, response: { 200: BrandReply, ...errorResponses(400, 401, 403, 409) } },
    },
    async (request) => ({ success: true, ...(await createBrand({ ctx: callerCtx(deps, request), input: request.body })) }),
  );

  app.put(
    "/api/admin/brands/:id",
    {
      schema: {
        tags: TENANTS,
        summary: "Rename a brand of the session's organization (admin or owner; audited brand.update)",
        params: IdParams,
        body: UpdateBrandBody,
        response: { 200: BrandReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true, ...(await renameBrand({ ctx: callerCtx(deps, request), input: { brandId: request.params.id, name: request.body.name } })) }),
  );

  app.delete(
    "/api/admin/brands/:id",
    {
      schema: {
        tags: TENANTS,
        summary: "Soft-delete a brand of the session's organization (admin or owner)",
        params: IdParams,
        response: { 200: BrandReply, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => ({ success: true, ...(await deleteBrand({ ctx: callerCtx(deps, request), input: { brandId: request.params.id } })) }),
  );

  app.post(
    "/api/admin/brands/:id/restore",
    { schema: { tags: TENANTS, summary: "Restore a soft-deleted brand of the session's organization (admin or owner)", params: IdParams, response: { 200: BrandReply, ...errorResponses(401, 403, 404) } } },
    async (request) => ({ success: true, ...(await restoreBrand({ ctx: callerCtx(deps, request), input: { brandId: request.params.id } })) }),
  );
}
