/**
 * The outbound message types come from one table (`outboundMessageSchemas` in message-schema.ts): the union, its
 * error for an unknown `type`, and the public `OutboundMessage` type must all say the same list.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  OUTBOUND_MESSAGE_TYPES,
  type OutboundMessageType,
  outboundMessageSchema,
} from '../../src/gateway/message-schema.js';
import { type OutboundMessage, type ValidatedMessage, validateMessage } from '../../src/index.js';

const to = '998901234567';

describe('the table of outbound message types', () => {
  it('is keyed by each schema’s own `type`, in the union’s order', () => {
    expect(outboundMessageSchema.options.map((schema) => schema.shape.type.value)).toEqual(
      OUTBOUND_MESSAGE_TYPES,
    );
  });

  it('the error for an unknown type lists every type of the table, and nothing else', () => {
    const result = validateMessage({ to, type: 'video', video: { link: 'https://cdn.example.com/v.mp4' } });
    expect(result.valid).toBe(false);
    const issue = result.valid ? undefined : result.issues[0];
    expect(issue).toMatchObject({ path: ['type'], rule: 'type.enum' });
    const listed = [...(issue?.message ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(listed).toEqual(OUTBOUND_MESSAGE_TYPES);
  });

  it('each type of the table is taken by `type`: without its body, the issue is the body, never `type.enum`', () => {
    for (const type of OUTBOUND_MESSAGE_TYPES) {
      const result = validateMessage({ to, type });
      const issues = result.valid ? [] : result.issues;
      expect(
        issues.map((i) => i.rule),
        type,
      ).not.toContain('type.enum');
      expect(issues[0]?.path[0], type).toBe(type);
    }
  });

  it('the public types cover the table exactly (checked by the compiler)', () => {
    expectTypeOf<OutboundMessage['type']>().toEqualTypeOf<OutboundMessageType>();
    expectTypeOf<ValidatedMessage['type']>().toEqualTypeOf<OutboundMessageType>();
  });
});
