/**
 * The client's own ioredis `keyPrefix` comes before every key a store writes (script keys included), so the
 * store's slot rule applies to it and the store's `prefix` together. No server is needed: the clients never connect.
 */
import { Cluster, Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { RedisStatusStore, RedisTokenStore } from '../../src/redis/index.js';
import { openStore } from '../../src/redis/store-options.js';

const clients: (Redis | Cluster)[] = [];
function lazy<T extends Redis | Cluster>(client: T): T {
  clients.push(client);
  return client;
}
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});

it("a client keyPrefix with a stray '{' is refused when the store is built, naming keyPrefix", () => {
  const redis = lazy(new Redis({ lazyConnect: true, keyPrefix: 'app{x:' }));
  const cluster = lazy(
    new Cluster([{ host: '127.0.0.1', port: 7499 }], { lazyConnect: true, keyPrefix: 'app{x:' }),
  );
  for (const client of [redis, cluster]) {
    const build = () => new RedisStatusStore({ redis: client, logLevel: 'off' });
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow("`keyPrefix` + `prefix` 'app{x:wa:' has a '{' without a hash tag after it");
  }
});

it("a Cluster client's tagged keyPrefix keeps the store's keys in its slot, with the one-slot warning once", () => {
  const warned: string[] = [];
  const logger = { warn: (m: string) => void warned.push(m) };
  const nodes = [{ host: '127.0.0.1', port: 7499 }];
  for (const options of [{ keyPrefix: '{app}:' }, { redisOptions: { keyPrefix: '{app}:' } }]) {
    const cluster = lazy(new Cluster(nodes, { lazyConnect: true, ...options }));
    expect(openStore({ redis: cluster, logger }, 'test').keys.spread).toBe(false);
    new RedisTokenStore({ redis: cluster, logger }); // the same client and prefix: no second warning
  }
  expect(warned.filter((m) => m.includes("'{app}:wa:' holds a hash tag"))).toHaveLength(2);
  // Without a tag anywhere, the keys spread over the cluster's slots as usual.
  const plain = lazy(new Cluster(nodes, { lazyConnect: true, keyPrefix: 'app:' }));
  expect(openStore({ redis: plain, logger }, 'test').keys.spread).toBe(true);
});
