import type { z } from 'zod';
import { safeCheck } from '../../core/zod.js';

/**
 * How a simulated platform route answers: a plain `Answer`, or a thrown `Refusal` for an error body. Also
 * the request-side helpers every route shares (JSON body, query enums and booleans). Framework-free: Fetch
 * `Request` in, Fetch `Response` out.
 */

export type Host = 'platform' | 'stream';
export type Method = 'GET' | 'POST';

export interface Answer {
  status: number;
  /** JSON-serialised; `undefined` is an empty body. */
  body?: unknown;
  /** NDJSON records instead of a JSON body. */
  ndjson?: readonly unknown[];
  headers?: Record<string, string>;
}

export interface RouteContext {
  query: URLSearchParams;
  /** The parsed JSON object of a POST. */
  body: Record<string, unknown>;
  /** The authenticated user (`null` for login). */
  username: string | null;
}

export interface Route {
  host: Host;
  method: Method;
  path: string;
  /** Login is the one endpoint without `Authorization: JWT <token>`. */
  open?: boolean;
  handle: (ctx: RouteContext) => Answer;
}

/** Thrown by a route to answer with an error body. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`${status}`);
  }
}

export const detail = (status: number, text: string): Refusal => new Refusal(status, { detail: text });
export const ok = (text: string): Answer => ({ status: 200, body: { detail: text } });

/** The body checked against `schema`, or a 400 `{ detail }` naming the first issues. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, prefix?: string): z.output<S> {
  const result = safeCheck(schema, body);
  if (result.ok) return result.data;
  const issues = prefix ? result.issues.map((i) => ({ ...i, path: [prefix, ...i.path] })) : result.issues;
  throw detail(400, describeIssues(issues));
}

export function describeIssues(issues: readonly { path: (string | number)[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}

export async function jsonObject(request: Request): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await request.text());
  } catch {
    throw detail(400, 'JSON parse error.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw detail(400, 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

export function toResponse(answer: Answer): Response {
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.ndjson !== undefined) {
    headers['content-type'] = 'application/x-ndjson';
    return new Response(ndjson(answer.ndjson), { status: answer.status, headers });
  }
  if (answer.body === undefined) return new Response(null, { status: answer.status, headers });
  headers['content-type'] = 'application/json';
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}

/** One line per record, produced as the client reads (500 records a chunk). */
function ndjson(records: readonly unknown[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= records.length) {
        controller.close();
        return;
      }
      let chunk = '';
      for (const end = Math.min(i + 500, records.length); i < end; i++)
        chunk += `${JSON.stringify(records[i])}\n`;
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

export function enumParam<const T extends readonly string[]>(
  query: URLSearchParams,
  name: string,
  values: T,
  refuse: (text: string) => Refusal = (text) => new Refusal(400, { error: text }),
): T[number] | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const found = values.find((v) => v === value);
  if (found === undefined) {
    throw refuse(`Undefined ${name}: '${value}'. Expected one of: ${values.join(', ')}.`);
  }
  return found;
}

export function booleanParam(
  query: URLSearchParams,
  name: string,
  refuse: (text: string) => Refusal,
): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw refuse(`Undefined ${name}: '${value}'. Expected true or false.`);
}
