// Inputs made from the OpenAPI document's own schemas: a plausible value for each schema, and the
// paths of its members. Used by test/http/no-500.test.ts and by `npm run fuzz` (scripts/fuzz.ts).

export type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** The documented path, parameters as `{name}`. */
  path: string;
  body: Schema | null;
  query: { name: string; schema: Schema; required: boolean }[];
}

export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      body: operation.requestBody?.content?.["application/json"]?.schema ?? null,
      query: ((operation.parameters ?? []) as any[]).filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
    })),
  );
}

/** The first branch of a union that is not null. */
function branchOf(schema: Schema): Schema {
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (!branches) return schema;
  return branchOf(branches.find((b) => b.type !== "null") ?? branches[0]);
}

function sampleString(schema: Schema, name: string): string {
  if (schema.pattern === "^[A-Za-z]{3}$") return "USD";
  if (schema.format === "uri" || schema.pattern === "^https?://" || /url$/i.test(name)) return "https://example.com/fuzz";
  if (schema.format === "email" || /email$/i.test(name)) return "fuzz@example.com";
  if (/domain$/i.test(name)) return "shop.example.com";
  const text = name === "password" ? "correct horse battery" : `${name || "x"}-1`;
  const min = schema.minLength ?? 0;
  return (text.length >= min ? text : text.padEnd(min, "x")).slice(0, schema.maxLength ?? Infinity);
}

/** A value the schema accepts as far as the document says (patterns other than the known two aside). */
export function sampleOf(schema: Schema, name = ""): unknown {
  const s = branchOf(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  switch (Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type) {
    case "string":
      return sampleString(s, name);
    case "integer":
    case "number":
      return Math.min(Math.max(s.minimum ?? 1, 1), s.maximum ?? Infinity);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, () => sampleOf(s.items ?? {}, name));
    case "object": {
      const value: Record<string, unknown> = {};
      for (const [key, member] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) value[key] = sampleOf(member, key);
      for (const member of Object.values((s.patternProperties ?? {}) as Record<string, Schema>)) value["X-Fuzz"] = sampleOf(member, "X-Fuzz");
      if (typeof s.additionalProperties === "object") value["fuzz-key"] = sampleOf(s.additionalProperties, "fuzz-key");
      return value;
    }
    default:
      return "x";
  }
}

/** Member paths of every leaf the schema names whose type is `type` (array items as index 0). */
export function leafPaths(schema: Schema, type: string, prefix: string[] = []): string[][] {
  const s = branchOf(schema);
  const kind = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (kind === "array") return leafPaths(s.items ?? {}, type, [...prefix, "0"]);
  if (kind === "object") {
    const members = Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([key, member]) => [key, member] as const);
    for (const member of Object.values((s.patternProperties ?? {}) as Record<string, Schema>)) members.push(["X-Fuzz", member]);
    if (typeof s.additionalProperties === "object") members.push(["fuzz-key", s.additionalProperties]);
    return members.flatMap(([key, member]) => leafPaths(member, type, [...prefix, key]));
  }
  return kind === type && !s.enum && s.const === undefined ? [prefix] : [];
}

/** Every member path the schema names (objects and leaves), for removals and retypings. */
export function memberPaths(schema: Schema, prefix: string[] = []): string[][] {
  const s = branchOf(schema);
  if (s.type === "array") return memberPaths(s.items ?? {}, [...prefix, "0"]);
  if (s.type !== "object") return [];
  return Object.entries((s.properties ?? {}) as Record<string, Schema>).flatMap(([key, member]) => [[...prefix, key], ...memberPaths(member, [...prefix, key])]);
}

/** A copy of `value` with the member at `path` set to `replacement` (or removed when it is `undefined`). */
export function withMember(value: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  const [head, ...rest] = path;
  if (rest.length === 0 && replacement === undefined) delete copy[head];
  else copy[head] = withMember(copy[head] ?? {}, rest, replacement);
  return copy;
}

/** `{"a":{"a":…1}}` `levels` deep, as JSON text (built without recursion). */
export function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}
