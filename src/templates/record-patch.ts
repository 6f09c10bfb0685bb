/**
 * A template record's patch, checked alike by every `TemplateStore` before it writes. Apart from the catalogue, so
 * the Durable Objects entry imports it without the template rules the catalogue's module brings.
 */
import { ConfigurationError } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';

/**
 * @internal A patch as every `TemplateStore.update` checks it before writing: an object whose `status` is a status's
 * name, `reason` text or `null`, `sourceId` text and `definition` an object (a store kept `status: 12345`, and a
 * later send check read it).
 */
export function checkTemplatePatch(call: string, patch: unknown): void {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw new ConfigurationError(
      `${call}: \`patch\` must be an object of the fields to set (status, reason, sourceId, definition); got ${givenValue(patch)}.`,
    );
  const { status, reason, sourceId, definition } = patch as Record<string, unknown>;
  const wrong =
    status !== undefined && (typeof status !== 'string' || status.trim() === '')
      ? ['status', "a status's name (APPROVED, PAUSED, ...)", status]
      : reason !== undefined && reason !== null && typeof reason !== 'string'
        ? ['reason', 'text, or null to clear it', reason]
        : sourceId !== undefined && typeof sourceId !== 'string'
          ? ['sourceId', 'the upstream template id as text', sourceId]
          : definition !== undefined &&
              (typeof definition !== 'object' || definition === null || Array.isArray(definition))
            ? ['definition', 'a template definition (an object)', definition]
            : undefined;
  if (wrong)
    throw new ConfigurationError(
      `${call}: \`${wrong[0]}\` must be ${wrong[1]}; got ${givenValue(wrong[2])}.`,
    );
}
