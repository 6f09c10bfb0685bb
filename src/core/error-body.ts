import {
  type ApiError,
  type ApiErrorDetails,
  apiErrorClassFor,
  RateLimitError,
  RedirectError,
} from './errors.js';
import { headerValue } from './headers.js';
import { isRecord } from './plain-data.js';
import { excerpt, scrub, scrubValue } from './secrets.js';

/**
 * Turns any error answer into the right `ApiError` subclass. Knows body *formats*, not endpoints:
 *
 * - the envelope `{ isSuccess: false, errors: { code, group, description, params, fields } }` (gateway and
 *   public API);
 * - plain bodies `{ detail }`, `{ error }`, `{ info, error }`, `{ non_field_errors: [...] }` (platform API);
 * - anything else (an HTML page from a proxy, an empty or truncated body): the class still follows the
 *   status, with a short excerpt as the description.
 *
 * The class follows the envelope's code where the spec documents it (`apiErrorClassFor`), else the status: so
 * a failure envelope on a 2xx is typed as its code says.
 */
export function toApiError(input: {
  status: number;
  text: string;
  headers: Headers;
  secrets: readonly string[];
  request?: { method: string; path: string };
}): ApiError {
  const { status, headers, secrets } = input;
  const text = scrub(input.text, secrets);
  // Parsed from the raw text, then scrubbed: a secret the server wrote escaped (`\u00e4`, `\/`) only
  // matches once decoded, so scrubbing the text alone would let it through into the description.
  let parsed: unknown;
  let isJson = false;
  if (text.trim() !== '') {
    try {
      parsed = scrubValue(JSON.parse(input.text), secrets);
      isJson = true;
    } catch {
      // Not JSON: described by excerpt below.
    }
  }
  const details: ApiErrorDetails = {
    status,
    code: null,
    group: null,
    description: '',
    body: isJson ? parsed : excerpt(text, 500),
    ...(input.request ? { request: input.request } : {}),
    ...requestIdOf(headers, secrets),
  };
  if (isJson && isRecord(parsed)) fillFromJson(details, parsed);
  if (details.description === '') {
    details.description =
      text.trim() === ''
        ? `HTTP ${status} with an empty body`
        : isJson
          ? `HTTP ${status}: ${excerpt(JSON.stringify(parsed) ?? '')}`
          : `HTTP ${status} with a non-JSON body (${contentTypeOf(headers, secrets)}): ${excerpt(text)}`;
  }
  const ErrorClass = apiErrorClassFor(status, details.code);
  if (ErrorClass === RateLimitError) {
    const limitType = details.params?.['limit_type'];
    const retryAfterMs =
      parseDurationMs(details.params?.['retry_after']) ??
      parseRetryAfterHeader(headerValue(headers, 'retry-after') ?? null);
    return new RateLimitError({
      ...details,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(limitType === 'sec' || limitType === 'min' ? { limitType } : {}),
    });
  }
  return new ErrorClass(details);
}

/**
 * A 3xx answer as a `RedirectError`: the status and the target's origin, never its path or query, when the runtime
 * gives them. `url` is the address the request went to (to resolve a relative `Location`, and to name the origin to
 * check). `status` 0 is a redirect whose status and target the runtime hides: Node's fetch refusing it (the SDK asks
 * it to: `redirect: 'error'`), or a browser's opaque redirect.
 */
export function toRedirectError(input: {
  status: number;
  headers: Headers;
  url: string;
  secrets: readonly string[];
  request: { method: string; path: string };
}): RedirectError {
  const { status, request, secrets } = input;
  // A long Location is still a Location: only its origin is kept.
  const location = originOf(headerValue(input.headers, 'location', 4096), input.url, secrets);
  const address = scrub(input.url.split('?')[0] ?? '', secrets);
  const origin = originOf(input.url, input.url, secrets) ?? address;
  const what =
    status === 0
      ? `The server at ${origin} answered with a redirect (3xx); this runtime's fetch, which the SDK tells not to ` +
        'follow redirects, does not say which status or where to.'
      : `HTTP ${status}: ${origin} answered with a redirect ${location ? `to ${location}` : 'with no usable Location'}.`;
  const description =
    `${what} The SDK follows no redirect (it would re-send the request and its credentials elsewhere): check the ` +
    "client's base URL, which must be the address that answers, not one that redirects (http:// where https:// " +
    `is served, a path missing or too many, a host that moved).${
      status === 0 ? ` \`curl -sI ${address}\` shows the status and the Location.` : ''
    }`;
  return new RedirectError(
    {
      status,
      code: null,
      group: null,
      description,
      body: undefined,
      request,
      location,
      ...requestIdOf(input.headers, secrets),
    },
    `${description} (${request.method} ${request.path})`,
  );
}

function originOf(
  location: string | undefined,
  base: string,
  secrets: readonly string[],
): string | undefined {
  if (!location) return undefined;
  try {
    const origin = new URL(location, base).origin;
    return origin === 'null' ? undefined : scrub(origin, secrets);
  } catch {
    return undefined;
  }
}

function fillFromJson(details: ApiErrorDetails, body: Record<string, unknown>): void {
  const raw = Array.isArray(body['errors']) ? body['errors'][0] : body['errors'];
  if (isRecord(raw)) {
    details.code = typeof raw['code'] === 'string' ? raw['code'] : null;
    details.group = typeof raw['group'] === 'string' ? raw['group'] : null;
    if (typeof raw['description'] === 'string') details.description = raw['description'];
    if (isRecord(raw['params'])) details.params = raw['params'];
    if (isRecord(raw['fields'])) details.fields = raw['fields'] as ApiErrorDetails['fields'];
    return;
  }
  // Platform API plain bodies. `info` explains an invalid custom-field value alongside `error`.
  const texts: string[] = [];
  for (const key of ['detail', 'error', 'info'] as const) {
    if (typeof body[key] === 'string') texts.push(body[key]);
  }
  const nfe = body['non_field_errors'];
  if (Array.isArray(nfe)) texts.push(...nfe.filter((t): t is string => typeof t === 'string'));
  if (texts.length > 0) details.description = texts.join(' ');
}

// Headers are the server's words like the body: only plain ASCII kept (headers.ts), scrubbed the same way, and
// shortened (a request id is short).
function requestIdOf(headers: Headers, secrets: readonly string[]): { requestId?: string } {
  const id = requestIdHeader(headers);
  return id ? { requestId: scrubRequestId(id, (text) => scrub(text, secrets)) } : {};
}

/**
 * A server's request id as every report of it gives it (errors, hooks, log lines, `withResponse()`): the server's
 * words, so scrubbed of the client's credentials by `redact` and shortened.
 */
export function scrubRequestId(id: string, redact: (text: string) => string): string {
  return excerpt(redact(id), 100);
}

function contentTypeOf(headers: Headers, secrets: readonly string[]): string {
  const type = headerValue(headers, 'content-type')?.split(';')[0];
  return type ? excerpt(scrub(type, secrets), 100) : 'no content type';
}

/**
 * The server's request id header (`x-request-id`, else `request-id`), when it is plain visible ASCII of a sane length
 * (see headers.ts); a value of any other form is treated as absent.
 */
export function requestIdHeader(headers: Headers): string | undefined {
  return headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
}

/**
 * Parses the gateway's duration strings (`params.retry_after`: `1s`, `60s`) and HTTP `Retry-After` values into
 * milliseconds. Returns `undefined` for anything it cannot read, so a malformed hint falls back to backoff
 * instead of failing the request.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDurationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? 's').toLowerCase();
  return Math.round(Number(match[1]) * (UNIT_MS[unit] ?? 1000));
}

/** `Retry-After`'s delay-seconds, and its IMF-fixdate (RFC 9110 §10.2.3, §5.6.7), each as the first of a list. */
const DELAY_SECONDS = /^\s*(\d{1,10})\s*(?:,|$)/;
const IMF_FIXDATE =
  /^\s*((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT)\s*(?:,|$)/;

/**
 * `Retry-After` as delay-seconds or an IMF-fixdate, nothing looser: `Date.parse` reads almost anything as a date
 * (`"2, 2"`, a header sent twice and joined by fetch, is a day of 2001), and a past date means "retry now". A
 * repeated header counts by its first value; any other form is `undefined` (backoff).
 */
export function parseRetryAfterHeader(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const seconds = DELAY_SECONDS.exec(value);
  if (seconds) return Number(seconds[1]) * 1000;
  const date = IMF_FIXDATE.exec(value);
  const at = date ? Date.parse(date[1] as string) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
