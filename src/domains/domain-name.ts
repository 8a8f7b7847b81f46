import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { parse } from "tldts";
import { AppError } from "../lib/errors.js";

export const domainRequired = () => new AppError("DOMAIN_REQUIRED", "Domain is required");
export const invalidDomainFormat = (details?: string) => new AppError("INVALID_DOMAIN", "Invalid domain format", details);

export interface DomainName {
  /** Lower-case ASCII (punycode) form, no trailing dot: what is stored and sent to the platform. */
  ascii: string;
  /** An apex per the Public Suffix List (`example.com`, `example.co.uk`): A record; else CNAME (CONTRACT item 33). */
  isRoot: boolean;
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks and normalises a host name typed by a user: trimmed, lower-cased, internationalised names
 * in punycode; at most 253 characters and labels of at most 63; no wildcard, no IP literal, no scheme,
 * port or path; not a public suffix itself (`co.uk`).
 */
export function parseDomainName(input: unknown): DomainName {
  if (typeof input !== "string" || input.trim() === "") throw domainRequired();
  const trimmed = input.trim().replace(/\.$/, "");
  if (trimmed.includes("*")) throw invalidDomainFormat("wildcards are not supported");
  if (isIP(trimmed) || /^\[.*\]$/.test(trimmed) || isIP(trimmed.replace(/^\[|\]$/g, ""))) throw invalidDomainFormat("an IP address is not a domain");
  if (/[\s/:?#@\\]/.test(trimmed)) throw invalidDomainFormat("a host name only: no scheme, port or path");
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === "") throw invalidDomainFormat();
  if (ascii.length > 253) throw invalidDomainFormat("at most 253 characters");
  const labels = ascii.split(".");
  if (labels.length < 2) throw invalidDomainFormat("a domain has at least two labels");
  for (const label of labels) {
    if (label.length > 63) throw invalidDomainFormat("labels are at most 63 characters");
    if (!LABEL.test(label)) throw invalidDomainFormat();
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) throw invalidDomainFormat();
  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (!parsed.domain || parsed.isIp) throw invalidDomainFormat("a public suffix cannot be added");
  return { ascii, isRoot: parsed.domain === ascii };
}
