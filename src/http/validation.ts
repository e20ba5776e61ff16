import type { FastifyRequest } from 'fastify';
import { type FieldProblem, invalidRequest, type IssuerError } from '../domain/errors.ts';

/**
 * Fastify's validator: no type coercion; an unknown field fails where a schema says
 * `additionalProperties: false` (the admin API) instead of being silently removed (Fastify's
 * default), and is kept, unseen, elsewhere (the scanner API); errors carry their schema so that
 * `x-problem` can say in words what a value must be.
 */
export const AJV_OPTIONS = {
  customOptions: {
    coerceTypes: false,
    allErrors: false,
    removeAdditional: false,
    verbose: true,
    keywords: ['x-problem'],
  },
};

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

/** The closest known field to an unknown one (`expiresAt` → `expires_at`), if any. */
function suggestion(unknown: string, schema: Record<string, unknown> | undefined): string {
  const known = Object.keys((schema?.properties as Record<string, unknown> | undefined) ?? {});
  const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const match = known.find((name) => squash(name) === squash(unknown));
  return match === undefined ? '' : ` (did you mean ${match}?)`;
}

/** What is wrong with a value, in words a person reads: never a regular expression. */
function problemOf(issue: AjvIssue, context: string | undefined): string {
  const params = issue.params ?? {};
  const limit = params.limit as number;
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'additionalProperties')
    return `is not a field of this request${suggestion(String(params.additionalProperty), issue.parentSchema)}`;
  if (context === 'params' && issue.keyword === 'minLength' && limit === 1) return 'is required in the path';
  const stated = issue.parentSchema?.['x-problem'];
  if (typeof stated === 'string') return stated;
  switch (issue.keyword) {
    case 'type':
      return `must be ${TYPE_WORDS[String(params.type)] ?? String(params.type)}`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'maxLength':
      return `must be at most ${limit} characters long`;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must hold at least ${limit} items`;
    case 'maxItems':
      return `must hold at most ${limit} items`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'pattern':
      return 'contains characters that are not allowed here';
    default:
      return issue.message ?? 'is invalid';
  }
}

function fieldOf(issue: AjvIssue, context: string | undefined): string {
  const path = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const named = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  if (typeof named === 'string') return path ? `${path}.${named}` : named;
  return path || (context ?? 'body');
}

/**
 * The problem of a nullable value whose other alternative failed inside it (an item of a list): the
 * union's own words, or "must be null or" what the other alternative is; the inner field says the rest.
 */
function nullOr(union: Record<string, unknown> | undefined): string {
  const stated = union?.['x-problem'];
  if (typeof stated === 'string') return stated;
  const other = (union?.anyOf as Record<string, unknown>[] | undefined)?.find((s) => s.type !== 'null');
  return `must be null or ${TYPE_WORDS[String(other?.type)] ?? 'a valid value'}`;
}

/**
 * Turns schema-validation issues into the contract's `fields` list, one problem per field. A value
 * that may also be null (anyOf [X, null]) is described by what X must be, "or null".
 */
export function fieldProblems(issues: AjvIssue[], context: string | undefined): FieldProblem[] {
  const byField = new Map<string, AjvIssue[]>();
  for (const issue of issues) {
    const field = fieldOf(issue, context);
    byField.set(field, [...(byField.get(field) ?? []), issue]);
  }
  return [...byField].map(([field, found]) => {
    const isNullAlternative = (i: AjvIssue) => i.keyword === 'type' && i.params?.type === 'null';
    const union = found.find((i) => i.keyword === 'anyOf');
    const orNull = union !== undefined && found.some(isNullAlternative);
    const first = found.find((i) => i.keyword !== 'anyOf' && !isNullAlternative(i));
    const stated = union?.parentSchema?.['x-problem'];
    if (orNull && (first === undefined || typeof stated === 'string'))
      return { field, problem: nullOr(union.parentSchema) };
    return { field, problem: `${problemOf(first ?? found[0]!, context)}${orNull ? ', or null' : ''}` };
  });
}

/** With the u flag, a surrogate pair is one code point: only a lone surrogate matches. */
const LONE_SURROGATE_CHAR = /[\uD800-\uDFFF]/u;
const LONE_SURROGATE_CHARS = /[\uD800-\uDFFF]/gu;
const isWellFormed = (text: string) => !LONE_SURROGATE_CHAR.test(text);

/** The paths of the strings (values or keys) with a lone UTF-16 surrogate in a parsed value, up to `limit`. */
function illFormedStrings(root: unknown, limit: number): string[] {
  const found: string[] = [];
  // An explicit stack: a body may nest deeper than the call stack allows.
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0 && found.length < limit) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) found.push(path);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const name = key.replace(LONE_SURROGATE_CHARS, '\uFFFD');
        const childPath = path === '' ? name : `${path}.${name}`;
        if (!isWellFormed(key)) found.push(childPath);
        stack.push([child, childPath]);
      }
    }
  }
  return found;
}

const LONE_SURROGATE = 'contains a lone UTF-16 surrogate (not valid Unicode text)';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks the items of its body one by one (an upload of scans): none fails the whole. */
    checksItemsApart?: boolean;
  }
}

/**
 * Refuses any string with a lone surrogate in the body, query or path parameters: stored, it would
 * become U+FFFD in one place and stay as sent in another (a signed token and its record disagree).
 */
export async function refuseLoneSurrogates(request: FastifyRequest): Promise<void> {
  if (request.routeOptions.config.checksItemsApart === true) return;
  const problem = loneSurrogateError([request.params, request.query, request.body]);
  if (problem !== null) throw problem;
}

/** The 400 of the first strings (at most 10) with a lone surrogate in `parts`, or null when there is none. */
export function loneSurrogateError(parts: readonly unknown[]): IssuerError | null {
  const fields: FieldProblem[] = [];
  for (const part of parts) {
    for (const field of illFormedStrings(part, 10 - fields.length)) {
      fields.push({ field: field || 'body', problem: LONE_SURROGATE });
    }
  }
  if (fields.length === 0) return null;
  return invalidRequest(`invalid request: ${fields.map((f) => `${f.field} ${f.problem}`).join('; ')}`, fields);
}
