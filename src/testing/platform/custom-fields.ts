import type { CustomFieldValue } from '../../platform/fields.js';
import { Refusal } from './answer.js';
import type { CustomFieldKind } from './state.js';

/** `{ identifier: { value } }` checked against the definitions; 400 `{ error }` or `{ info, error }`. */
export function customFieldValues(
  wrapped: Record<string, unknown>,
  definitions: Readonly<Record<string, CustomFieldKind>> | undefined,
): Record<string, CustomFieldValue> {
  const entries = Object.entries(wrapped);
  if (entries.length === 0) throw new Refusal(400, { error: 'No custom field given.' });
  const out: Record<string, CustomFieldValue> = {};
  for (const [id, holder] of entries) {
    if (typeof holder !== 'object' || holder === null || !('value' in holder)) {
      throw new Refusal(400, { error: `Custom field ${id} must be sent as { value }.` });
    }
    const value: unknown = holder.value;
    const kind = definitions?.[id];
    if (definitions !== undefined && kind === undefined) {
      throw new Refusal(400, { error: `Custom field not found: ${id}.` });
    }
    const scalar =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    const fits =
      scalar &&
      (kind === undefined ||
        value === null ||
        (kind === 'text' && typeof value === 'string') ||
        (kind === 'number' && typeof value === 'number') ||
        (kind === 'boolean' && typeof value === 'boolean') ||
        (Array.isArray(kind) && typeof value === 'string' && kind.includes(value)));
    if (!fits) {
      const expected = Array.isArray(kind) ? `one of ${kind.join(', ')}` : `a ${kind ?? 'scalar'} value`;
      throw new Refusal(400, { info: `${id} expects ${expected}.`, error: 'Invalid custom field value.' });
    }
    out[id] = value;
  }
  return out;
}
