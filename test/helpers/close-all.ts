import type { Server } from 'node:http';

/** Closes each of `things` that is open (a sandbox, or a node:http server in a test's role), together. */
export async function closeAll(
  ...things: (Server | { close(): Promise<void> } | undefined)[]
): Promise<void> {
  await Promise.all(
    things.map((thing) => {
      if (thing === undefined) return undefined;
      if ('listening' in thing) return new Promise<void>((resolve) => thing.close(() => resolve()));
      return thing.close();
    }),
  );
}
