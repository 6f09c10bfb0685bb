import { z } from 'zod';
import {
  type ApiPromise,
  apiPromise,
  type ResponseInfo,
  responseInfo,
  type WithResponse,
} from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import type { ClientTransportConfig } from '../core/client-options.js';
import { hot } from '../core/compiled.js';
import { type AnswerSeen, AuthenticationError, unexpectedAnswer } from '../core/errors.js';
import { refuseNearMisses } from '../core/option-keys.js';
import { traced } from '../core/tracing.js';
import { Transport } from '../core/transport.js';
import type { TransportRequest } from '../core/transport-request.js';
import { describeIssues, safeCheck } from '../core/zod.js';
import type { TokenManager } from './token-manager.js';

/** `platform`: login, reports, sends and the `/v2` operations. `stream`: stats and the message stream. */
export type Host = 'platform' | 'stream';

/**
 * `PlatformHttp.json` as handed to the body of a call that reports its answer (`run`). Given a schema, it checks
 * the 2xx body against it, and a body of another shape is an `InvalidResponseError` with the answer's status.
 */
export interface JsonCall {
  (host: Host, options: TransportRequest): Promise<unknown>;
  <S extends z.ZodType>(host: Host, options: TransportRequest, schema: S): Promise<z.output<S>>;
}

const SCHEME = 'JWT ';

/**
 * Authenticated requests to the platform's two hosts. The token comes from the `TokenManager`; after a 401
 * the transport hands back the header the server refused, and the token manager replaces that token only if
 * it is still the current one, so a burst of 401s costs a single login.
 *
 * @internal The SDK's own plumbing: built by the clients, never by a user; kept out of the published types.
 */
export class PlatformHttp {
  readonly #tokens: TokenManager;
  readonly #transports: Record<Host, Transport>;

  constructor(options: {
    tokens: TokenManager;
    platformUrl: string;
    streamUrl: string;
    config: ClientTransportConfig;
  }) {
    const { tokens, config } = options;
    this.#tokens = tokens;
    const transport = (baseUrl: string): Transport =>
      new Transport({
        ...config,
        baseUrl,
        authorization: (o) => this.#authorization(o),
        // Without credentials a 401 cannot be cured by logging in: it is explained instead.
        reauthenticateOn401: tokens.canLogIn,
      });
    this.#transports = { platform: transport(options.platformUrl), stream: transport(options.streamUrl) };
  }

  /** The host name `host` stands for (`server.address` in spans). */
  hostName(host: Host): string {
    return this.#transports[host].host;
  }

  async json(host: Host, options: TransportRequest): Promise<unknown> {
    return (await this.call(host, options)).data;
  }

  /** One platform call, in its own span, with the answer's `ResponseInfo`. */
  call(host: Host, options: TransportRequest): Promise<WithResponse<unknown>> {
    const transport = this.#transports[host];
    return traced(
      `wa-gateway platform ${options.method}`,
      { 'http.request.method': options.method, 'server.address': transport.host, 'url.path': options.path },
      async () => {
        try {
          const { data, response, attempts, call } = await transport.json(options);
          return { data, response: responseInfo(response, attempts, call) };
        } catch (error) {
          throw this.#explain(error);
        }
      },
    );
  }

  /**
   * A public method's promise: `body` makes its requests through the `json` it is given, and `withResponse()`
   * reports the answer of the last of them (a range fetched in windows reports its final window's).
   */
  run<T>(body: (json: JsonCall) => Promise<T>): ApiPromise<T> {
    return apiPromise(async () => {
      let last: ResponseInfo | undefined;
      const json = async (host: Host, options: TransportRequest, schema?: z.ZodType) => {
        const r = await this.call(host, options);
        last = r.response;
        if (schema === undefined) return r.data;
        const { method, path } = options;
        return parseAnswer(schema, r.data, { status: r.response.status, method, path });
      };
      const data = await body(json as JsonCall);
      return { data, response: last ?? NO_REQUEST };
    }, this.#transports.platform);
  }

  /**
   * A `POST` to the platform host answered with `{ detail }` (the `/v2` operations, `messages.send`). `body`
   * checks the arguments and builds the request body; it runs inside the call, after the options' keys (a near
   * miss such as `timeout_ms` is refused, named after `call`), so a bad argument rejects the promise before any
   * request.
   */
  operation(
    call: string,
    path: string,
    options: RequestOptions,
    body: () => unknown,
  ): ApiPromise<DetailResponse> {
    return this.run(async (json) => {
      refuseNearMisses(options, REQUEST_KEYS, call);
      return detailOf(
        await json('platform', {
          method: 'POST',
          path,
          body: body(),
          idempotent: false,
          ...requestOf(options),
        }),
      );
    });
  }

  /**
   * The 2xx answer with its body unread. The transport lets go of the caller's signal once the body ends,
   * fails or is cancelled, so the reader has nothing to release but the body itself.
   */
  async open(host: Host, options: TransportRequest): Promise<Response> {
    try {
      return await this.#transports[host].stream(options);
    } catch (error) {
      throw this.#explain(error);
    }
  }

  #authorization(options: {
    refresh: boolean;
    rejected?: string | undefined;
    signal?: AbortSignal;
  }): string | Promise<string> {
    const tokens = this.#tokens;
    if (options.refresh) return tokens.refresh(tokenOf(options.rejected), options.signal).then(header);
    // The common case answers synchronously: no turn of the event loop per request.
    const cached = tokens.cached();
    return cached === undefined ? tokens.token(options.signal).then(header) : header(cached);
  }

  #explain(error: unknown): unknown {
    // Only the server's own 401 names a request; an error of the token manager already says what to do.
    if (error instanceof AuthenticationError && error.request !== undefined && !this.#tokens.canLogIn) {
      return new AuthenticationError(
        error.details,
        `${error.message}. The platform rejected the token and no username/password are configured to log in ` +
          'again: pass credentials or a fresh token to the PlatformClient.',
      );
    }
    return error;
  }
}

/** The `ResponseInfo` of a call that needed no request (an empty range). */
const NO_REQUEST: ResponseInfo = {
  status: 0,
  headers: new Headers(),
  requestId: undefined,
  attempts: 0,
  call: 0,
};

function header(token: string): string {
  return `${SCHEME}${token}`;
}

function tokenOf(authorization: string | undefined): string | undefined {
  return authorization?.startsWith(SCHEME) ? authorization.slice(SCHEME.length) : authorization;
}

/** The answer of every `/v2/...` operation. */
export const detailResponseSchema = z.object({
  /** The server's confirmation text. */
  detail: z.string(),
});
export interface DetailResponse extends z.infer<typeof detailResponseSchema> {}

/** A 2xx body checked against its documented shape; the error names paths, never values. */
export function parseAnswer<S extends z.ZodType>(schema: S, data: unknown, answer: AnswerSeen): z.output<S> {
  const result = safeCheck(hot(schema), data);
  if (result.ok) return result.data;
  // Paths and expectations only: the body itself may hold customer data.
  const where = describeIssues(result.issues, 5);
  throw unexpectedAnswer(answer, `with a body that does not have the documented shape (${where}).`);
}

/** The operation was accepted whatever its body says, so a missing or odd `detail` is not an error. */
export function detailOf(data: unknown): DetailResponse {
  const read = hot(detailResponseSchema).safeParse(data);
  return { detail: read.success ? read.data.detail : '' };
}
