import { LIMITS, maxLengthRule, NAME_PATTERN, rule, TTL_RANGES } from './semantic.js';
import type { TemplateRule } from './snapshot.js';
import { formatPath, quote } from './text.js';

export function scalarRules(): TemplateRule[] {
  return [
    maxLengthRule('name.max_length', null, '', 'name', LIMITS.name, 'Template `name`'),
    rule('name.pattern', 'WA_TPL_034', 'name', '`name` matches `^[a-z][a-z0-9_]*$`.', (ctx, emit) => {
      const name = ctx.root?.str('name');
      if (name && !NAME_PATTERN.test(name)) {
        emit(
          ['name'],
          `Template name ${quote(name)} must start with a lowercase letter and use only a-z, 0-9 and _.`,
          { value: quote(name), pattern: NAME_PATTERN.source },
        );
      }
    }),
  ];
}

export function ttlRule(): TemplateRule {
  return rule(
    'messageSendTtlSeconds.range',
    null,
    'messageSendTtlSeconds',
    '`messageSendTtlSeconds` by category: UTILITY 30 to 43200; MARKETING 43200 to 2592000; AUTHENTICATION 30 to 900 or -1.',
    (ctx, emit) => {
      const v = ctx.root?.int('messageSendTtlSeconds');
      if (v === undefined || ctx.category === undefined) return;
      const { min, max, also } = TTL_RANGES[ctx.category];
      if ((v >= min && v <= max) || v === also) return;
      emit(
        ['messageSendTtlSeconds'],
        `messageSendTtlSeconds is ${v}; for ${ctx.category} it must be ${min} to ${max}${also === undefined ? '' : ` or ${also}`}.`,
        { min, max, ...(also === undefined ? {} : { also }), actual: v, category: ctx.category },
      );
    },
  );
}

const MAX_UNKNOWN_REPORTED = 20;

export function unknownFieldRule(): TemplateRule {
  return rule(
    'unknown_field',
    null,
    '*',
    'Every key is a field the spec defines; an unknown key (often a typo such as `phone_number`) is reported at its own path, up to 20 per object. The spec shows no code for it (a malformed request is 400 `REQ_001`).',
    (ctx, emit) => {
      for (const node of ctx.allObjects) {
        for (const key of node.extra.slice(0, MAX_UNKNOWN_REPORTED)) {
          // The key is quoted (cut to 40 characters) after its parent's path: input is never echoed whole.
          const message = `${formatPath(node.path)} key ${quote(key)} is not a field of the template create request; remove it.`;
          emit([...node.path, key], message, { key: quote(key) });
        }
      }
    },
  );
}

/** Reported by the validator (never by a check) if a check itself fails: a bug, please report it. */
export const INTERNAL_ERROR_RULE: TemplateRule = rule(
  'internal_error',
  null,
  '',
  'A check of the validator itself failed (a bug in the SDK, never expected). The template is reported invalid so it is not sent unchecked.',
  () => {},
);
