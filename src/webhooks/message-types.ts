/**
 * `MESSAGE_TYPES` without zod: the keys of the generated checkers' table, which is generated from `messageSchemas`
 * (messages/index.ts), the one list of message types.
 */
import { messageCheckers } from './checkers.generated.js';
import type { KnownMessageType } from './messages/index.js';

/** Incoming message types the SDK types (see `messageSchemas`). A message of any other type becomes the `unknown` variant. */
export const MESSAGE_TYPES = Object.keys(messageCheckers) as KnownMessageType[];
