/** Deepest nesting of objects and arrays an input may have; no SPEC body comes near it (docs/decisions.md). */
export const MAX_INPUT_DEPTH = 32;

export interface InputFault {
  /** Dotted path of the member (`customer.email`, `offers.2.price`); "" for the input itself. */
  path: string;
  /** What is wrong, worded to follow the path ("is not well-formed Unicode"). */
  problem: string;
}

// With the u flag a surrogate pair reads as one code point: only a lone surrogate is category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a text cannot be stored: PostgreSQL text and json refuse a NUL and a lone UTF-16 surrogate. */
function textFault(text: string): string | null {
  if (LONE_SURROGATE.test(text)) return "is not well-formed Unicode (a lone UTF-16 surrogate)";
  if (text.includes("\0")) return "contains a NUL character";
  return null;
}

/**
 * The first member of a parsed input (JSON body, query string, claims) that no handler may take:
 * a string or member name that PostgreSQL cannot store, or objects and arrays nested deeper than
 * MAX_INPUT_DEPTH. Iterative, so no nesting can overflow the stack; Buffers are not looked into.
 */
export function inputFault(input: unknown): InputFault | null {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: input, path: "", depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value, path, depth } = item;
    if (typeof value === "string") {
      const problem = textFault(value);
      if (problem) return { path, problem };
      continue;
    }
    if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) continue;
    if (depth === MAX_INPUT_DEPTH) return { path, problem: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
    for (const [key, member] of Object.entries(value)) {
      const memberPath = path === "" ? key : `${path}.${key}`;
      const problem = textFault(key);
      // The path goes into the answer and the log: the faulty name is shown repaired.
      if (problem) return { path: memberPath.replace(/\p{Cs}/gu, "\uFFFD").replace(/\0/g, "\\0"), problem: `is a member name that ${problem}` };
      pending.push({ value: member, path: memberPath, depth: depth + 1 });
    }
  }
  return null;
}
