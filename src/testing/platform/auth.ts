import { type Answer, Refusal, type Route, type RouteContext } from './answer.js';
import type { World } from './world.js';

/** `POST /jwt/` and the `Authorization: JWT <token>` check every other route makes. */

/** The user a token belongs to; 401 with the platform's texts for a missing, unknown or expired token. */
export function authenticate(world: World, header: string | null): string {
  const match = header === null ? null : /^JWT\s+(\S+)\s*$/i.exec(header.trim());
  if (!match) {
    throw new Refusal(401, { detail: 'Invalid Authorization header. No credentials provided.' });
  }
  const token = world.state.tokens.get(match[1]!);
  if (!token) throw new Refusal(401, { detail: 'Invalid auth key.' });
  if (token.expiresAt <= world.now()) {
    throw new Refusal(401, { detail: 'Signature has expired: invalid auth key.' });
  }
  return token.username;
}

export function authRoutes(world: World): Route[] {
  const login = ({ body }: RouteContext): Answer => {
    const missing: Record<string, string[]> = {};
    for (const field of ['username', 'password'] as const) {
      const value = body[field];
      if (typeof value !== 'string' || value === '') missing[field] = ['This field is required.'];
    }
    if (Object.keys(missing).length > 0) throw new Refusal(400, missing);
    const index = world.users.findIndex(
      (u) => u.username === body['username'] && u.password === body['password'],
    );
    const user = world.users[index];
    if (!user) throw new Refusal(400, { non_field_errors: ['Unable to log in with provided credentials.'] });
    const issued = ++world.issued;
    const at = world.now();
    const token = `sim.${issued}.${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
    world.state.tokens.set(token, {
      username: user.username,
      issuedAt: at,
      expiresAt: at + world.tokenLifetimeMs,
    });
    world.state.logins.push({ username: user.username, token, at });
    return {
      status: 200,
      body: {
        token,
        account: {
          uuid: user.accountUuid ?? `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
        },
        otp: user.otp ?? false,
        client: { device_id: `sim-device-${issued}` },
      },
    };
  };
  return [{ host: 'platform', method: 'POST', path: '/jwt/', open: true, handle: login }];
}
