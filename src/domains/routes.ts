import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { addDomain, listDomains, removeDomain, updateDomainAction } from "./domains.js";
import { AddDomainBody, AddDomainReply, DomainExistsReply, DomainQuery, DomainsReply, SuccessReply, UpdateDomainBody, UpdateDomainReply } from "./schemas.js";

const tags = ["Domains"];

/** SPEC "Domains": custom domains of the session's brand. Changes need admin or owner. */
export function registerDomainRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/domains",
    { schema: { tags, summary: "The brand's custom domains (400 with success: false and domains: [] when the hosting platform is not configured)", response: { 200: DomainsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listDomains({ ctx: callerCtx(deps, request) }),
  );

  app.post(
    "/api/admin/domains",
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: "Add a custom domain: stored unverified, with the DNS records to create",
        body: AddDomainBody,
        response: { 200: AddDomainReply, 409: DomainExistsReply, ...errorResponses(400, 401, 403, 502) },
      },
    },
    async (request) => addDomain({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.delete(
    "/api/admin/domains",
    { schema: { tags, summary: "Remove a custom domain (from the hosting platform too)", querystring: DomainQuery, response: { 200: SuccessReply, ...errorResponses(400, 401, 403, 404, 502) } } },
    async (request) => removeDomain({ ctx: callerCtx(deps, request), input: request.query }),
  );

  app.put(
    "/api/admin/domains",
    {
      schema: {
        tags,
        summary: "verify: check the DNS records and ask the platform; setPrimary: make it the brand's primary domain",
        body: UpdateDomainBody,
        response: { 200: UpdateDomainReply, ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => updateDomainAction({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
