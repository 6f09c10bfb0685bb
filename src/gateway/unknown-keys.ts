import type { z } from 'zod';
import { suggestKey } from '../core/option-keys.js';

/**
 * "Did you mean" for keys an outbound message may not carry. The closed schemas report unknown keys through
 * `unknownKeysError`; `toMessageIssues` turns each such zod issue into one issue per key, at the key's own path.
 */

/** Send options people put inside the message by mistake: they are the second argument of `send`. */
const SEND_OPTIONS: Readonly<Record<string, string>> = {
  isFake: 'isFake: true',
  is_fake: 'isFake: true',
  isfake: 'isFake: true',
  mmlite: 'mmlite: true',
  validate: 'validate: false',
  extraFields: 'extraFields: { ... }',
  signal: 'signal',
  timeoutMs: 'timeoutMs: 10_000',
  retryInFlight: 'retryInFlight: true',
};

/** Names from other APIs whose meaning has a different message field here (option names: `suggestKey`'s own). */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  url: 'link',
  href: 'link',
  lang: 'language',
};

/** The message for one unknown key at an object whose keys are `known`. */
export function describeUnknownKey(key: string, known: readonly string[], atRoot: boolean): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  if (atRoot && key === 'messaging_product') {
    return "unknown field 'messaging_product': the client fills it (GatewayClient option `messagingProduct`)";
  }
  if (atRoot && Object.hasOwn(SEND_OPTIONS, key)) {
    return (
      `unknown field '${shown}': this is a send option, not a message field: ` +
      `messages.send(msg, { ${SEND_OPTIONS[key]} })`
    );
  }
  const hint = suggestKey(key, known, false, FIELD_ALIASES);
  const tail = hint
    ? `did you mean '${hint}'?`
    : 'the spec does not show it; to send it anyway use the send option `extraFields`';
  return `unknown field '${shown}': ${tail}`;
}

/** Per-key messages of each unknown-keys issue, looked up by the issue's `keys` array (zod keeps that array). */
const perKey = new WeakMap<readonly string[], readonly string[]>();

/** The `error` option of a closed object: records the known keys so each unknown key gets its own message. */
export function unknownKeysError(known: readonly string[]) {
  return (issue: z.core.$ZodRawIssue): string | undefined => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const keys = (issue as { keys: string[] }).keys;
    const atRoot = known.includes('to') && known.includes('type');
    const messages = keys.map((k) => describeUnknownKey(k, known, atRoot));
    perKey.set(keys, messages);
    return messages.join('; ');
  };
}

/** One `{ key, message }` per unknown key of a zod `unrecognized_keys` issue. */
export function splitUnknownKeys(issue: { keys: readonly string[]; message: string }): {
  key: string;
  message: string;
}[] {
  const messages = perKey.get(issue.keys);
  return issue.keys.map((key, i) => ({
    key,
    message: messages?.[i] ?? describeUnknownKey(key, [], false),
  }));
}
