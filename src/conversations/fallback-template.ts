/**
 * The router's `fallbackTemplate` option: checked once, when the router is created, and read as one function of the
 * message context however it was given (a template, or a function returning one).
 */
import { ConfigurationError } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import type { OutboundTemplateMessage } from '../gateway/message-schema.js';

/** A template as `ctx.replyTemplate` takes it: name, language, components. */
type Template = OutboundTemplateMessage['template'];

/**
 * The fallback as a function of the context, or `undefined` when none was given. Anything but a template or a
 * function is refused here with a `ConfigurationError` naming what is wrong, not at the first closed window.
 */
export function fallbackOf<C>(option: unknown): ((ctx: C) => Promise<Template>) | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'function') {
    const build = option as (ctx: C) => Template | PromiseLike<Template>;
    return async (ctx) => build(ctx);
  }
  let problem: string | undefined;
  try {
    problem = templateProblem(option);
  } catch {
    // A getter that throws, a revoked proxy: say so rather than let a bare error out of createRouter.
    problem = 'it could not be read';
  }
  if (problem !== undefined) {
    throw new ConfigurationError(
      `createRouter fallbackTemplate must be a template, as ctx.replyTemplate takes it ({ name, language: { code }, components? }), or a function of the context that returns one: ${problem}.`,
    );
  }
  const template = option as Template;
  return () => Promise.resolve(template);
}

/**
 * Why `value` cannot be a template, or `undefined`. Only the shape a mistake gets wrong (a name given for the
 * object, a bare language code); every rule of the template message is checked where it is sent, as for any
 * reply. The outbound schemas are not imported here: they would bring zod into this portable entry, which has none.
 */
function templateProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `got ${givenValue(value)}`;
  }
  const { name, language, components } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return 'its name must be a non-empty string';
  if (typeof language === 'string')
    return `language is an object: did you mean language: { code: '${language.slice(0, 20)}' }?`;
  const code =
    typeof language === 'object' && language !== null ? (language as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || code === '') return 'its language must be { code } with a non-empty code';
  if (components !== undefined && !Array.isArray(components)) return 'its components must be an array';
  return undefined;
}
