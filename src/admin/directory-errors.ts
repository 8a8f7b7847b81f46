import { AppError, forbidden, notFound } from "../lib/errors.js";

// Errors of the users, organizations and brands administration (statuses in src/http/error-codes.ts).
export const userNotFound = () => notFound("User not found");
export const brandNotFound = () => notFound("Brand not found");
export const organizationNotFound = () => notFound("Organization not found");
export const lastOwner = () => new AppError("LAST_OWNER", "The last owner of an organization cannot be demoted or removed");
export const slugTaken = () => new AppError("SLUG_TAKEN", "Slug already exists");
export const ownerRequired = () => forbidden("Only an owner can grant, change or remove the owner role");
export const currentOrganization = () => new AppError("CURRENT_ORGANIZATION", "Switch to another organization before deleting this one");
export const defaultTenant = (what: "organization" | "brand") => new AppError("DEFAULT_TENANT", `The platform's default ${what} cannot be deleted`);
export const lastBrand = () => new AppError("LAST_BRAND", "An organization keeps at least one brand");
export const alreadyMember = () => new AppError("EMAIL_EXISTS", "Email already exists");
