import type { MessageIssue } from '../core/errors.js';
import { validateMessage } from './validate-message.js';

type Prepared = { valid: true; message: object } | { valid: false; issues: MessageIssue[] };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The message as it goes on the wire (without `messaging_product`): validated unless `validate` is `false`, with
 * `extraFields` merged in. Never throws: a throwing getter or Proxy becomes an issue.
 */
export function prepare(message: unknown, validate: boolean | undefined, extra: unknown): Prepared {
  let base: object;
  if (validate === false) {
    // The caller chose to skip the rules; the one thing still needed is an object to send.
    if (!isPlainObject(message)) {
      return {
        valid: false,
        issues: [
          { path: [], message: 'the message must be an object', code: 'invalid_type', rule: 'message.type' },
        ],
      };
    }
    base = message;
  } else {
    const checked = validateMessage(message);
    if (!checked.valid) return checked;
    base = checked.message;
  }
  if (extra === undefined) return { valid: true, message: base };
  if (!isPlainObject(extra)) {
    return {
      valid: false,
      issues: [
        {
          path: ['extraFields'],
          message: 'extraFields must be an object',
          code: 'invalid_type',
          rule: 'extraFields.type',
        },
      ],
    };
  }
  const issues: MessageIssue[] = [];
  try {
    const merged = merge(base as Record<string, unknown>, extra, [], issues);
    if (issues.length > 0 || validate === false)
      return issues.length > 0 ? { valid: false, issues } : { valid: true, message: merged };
    const shown = checkMerged(merged);
    if (shown === undefined) return { valid: true, message: merged };
    return 'message' in shown
      ? { valid: true, message: shown.message }
      : { valid: false, issues: shown.issues };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      valid: false,
      issues: [
        {
          path: ['extraFields'],
          message: `extraFields could not be read: ${why}`,
          code: 'unreadable',
          rule: 'unreadable',
        },
      ],
    };
  }
}

/**
 * The merged message held to the spec's rules: a field the spec shows, added through `extraFields` because the
 * message lacked it (`text.preview_url: 'yes'`, a template's `components`), is checked as it would be in the
 * message. Its issues other than the unknown fields (the extra fields themselves), their paths starting at
 * `extraFields`; or, when every field is one the spec shows, the message as checked (a button `index` of `0` sent
 * as `'0'`, as in the message); `undefined` when only unknown fields stand out.
 */
function checkMerged(
  merged: Record<string, unknown>,
): { message: object } | { issues: MessageIssue[] } | undefined {
  const checked = validateMessage(merged);
  if (checked.valid) return { message: checked.message };
  const issues = checked.issues
    .filter((issue) => issue.rule !== 'unknown_field')
    .map((issue) => ({ ...issue, path: ['extraFields', ...issue.path] }));
  return issues.length > 0 ? { issues } : undefined;
}

/**
 * `base` with `extra`'s keys added, recursing where both hold an object. A key both set to anything else is an
 * issue: extra fields add what the spec does not show, they never replace what was checked.
 */
function merge(
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
  path: string[],
  issues: MessageIssue[],
): Record<string, unknown> {
  const out = Object.entries(base);
  const index = new Map(out.map(([k], i) => [k, i]));
  for (const [key, value] of Object.entries(extra)) {
    const at = index.get(key);
    if (at === undefined) {
      index.set(key, out.length);
      out.push([key, value]);
      continue;
    }
    const current = out[at]![1];
    if (isPlainObject(current) && isPlainObject(value)) {
      out[at] = [key, merge(current, value, [...path, key], issues)];
    } else {
      issues.push({
        path: ['extraFields', ...path, key],
        message: `'${[...path, key].join('.')}' is already in the message; extraFields only adds fields the message does not have`,
        code: 'extra_field_conflict',
        rule: 'extraFields.conflict',
      });
    }
  }
  // fromEntries defines own properties: a "__proto__" key stays data, never a prototype.
  return Object.fromEntries(out);
}
