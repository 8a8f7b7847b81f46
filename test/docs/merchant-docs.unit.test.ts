// Issue 33 item 7: the merchant docs are merchant documents. They never send a reader to the
// specification or the operating contract (documents for the service's builders, not in the
// repository), and every relative link in them leads to a file that exists.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MERCHANT_DOCS = ["docs/merchant-guide.md", "docs/merchant-api.md", "client/README.md"];

describe.each(MERCHANT_DOCS)("%s", (file) => {
  const text = readFileSync(path.join(root, file), "utf8");

  it("names neither SPEC.md nor CONTRACT.md", () => {
    expect(text.match(/.*\b(SPEC|CONTRACT)(\.md)?\b.*/g) ?? []).toEqual([]);
  });

  it("links only to files that exist", () => {
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
    const missing = targets.filter((target) => !existsSync(path.resolve(root, path.dirname(file), target)));
    expect(missing).toEqual([]);
  });
});
