import { type Answer, type Host, jsonObject, Refusal, type Route, toResponse } from './answer.js';
import { authenticate, authRoutes } from './auth.js';
import { conversationRoutes } from './conversations.js';
import { customerRoutes } from './customers.js';
import { messageRoutes } from './messages.js';
import { reportRoutes } from './reports.js';
import type { PlatformHandlersOptions, PlatformRequest, PlatformState } from './state.js';
import { streamRoutes } from './stream.js';
import { World } from './world.js';

/**
 * The conversation platform API, simulated without a framework: a Fetch `Request` in, a Fetch `Response` out.
 * Each resource's routes live in their own module (auth, reports, stream, messages, conversations, customers);
 * this class owns what is common to all of them: the `JWT` header check, forced faults, the record of requests,
 * and the 404/405 the server answers for an unknown path or method. `createPlatformHandlers` adapts it to msw;
 * a real `node:http` server can serve `handle` just as well.
 *
 * @example
 * const platform = new PlatformSimulator({ platformUrl: 'https://platform.test', streamUrl: 'https://stream.test' });
 * const res = await platform.handle(new Request('https://stream.test/stats'));
 * // res?.status === 401: no token yet
 */
export class PlatformSimulator {
  readonly state: PlatformState;
  readonly #world: World;
  readonly #routes: readonly Route[];
  readonly #bases: Record<Host, string>;
  readonly #catchAll: boolean;

  constructor(options: PlatformHandlersOptions) {
    this.#world = new World(options);
    this.state = this.#world.state;
    const w = this.#world;
    this.#routes = [
      ...authRoutes(w),
      ...reportRoutes(w),
      ...streamRoutes(w),
      ...messageRoutes(w),
      ...conversationRoutes(w),
      ...customerRoutes(w),
    ];
    this.#bases = {
      platform: options.platformUrl.replace(/\/+$/, ''),
      stream: options.streamUrl.replace(/\/+$/, ''),
    };
    this.#catchAll = options.catchAll ?? true;
  }

  /** The base URLs requests are matched under, without a trailing slash. */
  get bases(): Readonly<Record<Host, string>> {
    return this.#bases;
  }

  /**
   * Answers a request below `platformUrl` or `streamUrl`; `undefined` for one this simulator does not serve
   * (another origin, or an unknown path with `catchAll: false`).
   */
  async handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    const hosts = (Object.keys(this.#bases) as Host[]).filter((h) => this.#pathBelow(h, url) !== undefined);
    for (const host of hosts) {
      const path = this.#pathBelow(host, url)!;
      const route = this.#routes.find(
        (r) => r.host === host && r.path === path && r.method === request.method.toUpperCase(),
      );
      if (route) return this.#dispatch(route, request, url);
    }
    if (!this.#catchAll || hosts.length === 0) return undefined;
    const host = hosts[0]!;
    const path = this.#pathBelow(host, url)!;
    const allowed = this.#routes
      .filter((r) => r.path === path && (r.host === host || this.#bases[r.host] === this.#bases[host]))
      .map((r) => r.method);
    const answer: Answer =
      allowed.length > 0
        ? {
            status: 405,
            body: { detail: `Method "${request.method}" not allowed.` },
            headers: { allow: allowed.join(', ') },
          }
        : { status: 404, body: { detail: 'Not found.' } };
    this.state.requests.push({
      host,
      method: request.method,
      path,
      query: Object.fromEntries(url.searchParams),
      status: answer.status,
      username: null,
    });
    return toResponse(answer);
  }

  /** The path of `url` below the host's base URL, or `undefined` when it is not below it. */
  #pathBelow(host: Host, url: URL): string | undefined {
    const base = new URL(this.#bases[host]);
    if (url.origin !== base.origin) return undefined;
    const prefix = base.pathname.replace(/\/$/, '');
    if (!url.pathname.startsWith(`${prefix}/`)) return undefined;
    return url.pathname.slice(prefix.length);
  }

  #takeFault(route: Route): Answer | undefined {
    const faults = this.state.faults;
    const i = faults.findIndex(
      (f) => f.path === route.path && (f.method === undefined || f.method === route.method),
    );
    const fault = faults[i];
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(i, 1);
    return { status: fault.status, body: fault.body ?? { detail: 'Simulated failure.' } };
  }

  async #dispatch(route: Route, request: Request, url: URL): Promise<Response> {
    const entry: PlatformRequest = {
      host: route.host,
      method: route.method,
      path: route.path,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      username: null,
    };
    this.state.requests.push(entry);
    let answer: Answer;
    try {
      const username = route.open ? null : authenticate(this.#world, request.headers.get('authorization'));
      entry.username = username;
      answer =
        this.#takeFault(route) ??
        route.handle({
          query: url.searchParams,
          body: route.method === 'POST' ? await jsonObject(request) : {},
          username,
        });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      answer = {
        status: error.status,
        body: error.body,
        ...(error.status === 401 ? { headers: { 'www-authenticate': 'JWT realm="api"' } } : {}),
      };
    }
    entry.status = answer.status;
    return toResponse(answer);
  }
}
