/**
 * A template send's `components`, built from a definition and its values (`{ header, body, buttons }`), so
 * nobody writes that array by hand.
 */
import { ConfigurationError } from '../core/errors.js';
import type { TemplateDefinition, UntypedTemplateSendValues } from '../templates/define.js';

const MEDIA_TYPE: Readonly<Record<string, string>> = { IMAGE: 'image', VIDEO: 'video', DOCUMENT: 'document' };

/** One body value as a parameter: a string is a `text` parameter; a parameter object is kept as given. */
function parameter(value: unknown): object {
  if (typeof value === 'string') return { type: 'text', text: value };
  if (typeof value === 'object' && value !== null) return value;
  // Kept visible to the check, which names the type it got ("must be text ..., got number").
  return { type: typeof value };
}

/**
 * The `components` of a send of `definition` with `values`: header (its variable, or the media link), body (one
 * parameter per value), URL buttons (`sub_type: 'url'`) and quick-reply payloads (`sub_type: 'quick_reply'`),
 * each with its `index`. Values the definition has no place for are still built, so the check can name them.
 */
export function templateComponents(
  definition: TemplateDefinition | undefined,
  values: UntypedTemplateSendValues,
): object[] {
  const components: object[] = [];
  const header = values.header;
  if (header !== undefined) {
    const media = MEDIA_TYPE[definition?.header?.format ?? ''];
    components.push({
      type: 'header',
      parameters: [
        media && typeof header === 'object' && header !== null
          ? { type: media, [media]: media === 'image' ? { link: header.link } : { ...header } }
          : parameter(header),
      ],
    });
  }
  const body = values.body;
  if (body !== undefined && !Array.isArray(body))
    throw new ConfigurationError("sendTemplate values.body must be an array of the body's values, in order.");
  if (body !== undefined && body.length > 0)
    components.push({ type: 'body', parameters: body.map(parameter) });
  const buttons = values.buttons;
  if (buttons !== undefined && (typeof buttons !== 'object' || buttons === null))
    throw new ConfigurationError(
      'sendTemplate values.buttons must be an object (or array) of values by button index.',
    );
  if (buttons !== undefined) {
    for (const [key, value] of Object.entries(buttons)) {
      if (value === undefined || !/^\d+$/.test(key)) continue;
      const quickReply = definition?.buttons?.[Number(key)]?.type === 'QUICK_REPLY';
      components.push({
        type: 'button',
        sub_type: quickReply ? 'quick_reply' : 'url',
        index: key,
        parameters: [parameter(value)],
      });
    }
  }
  return components;
}
