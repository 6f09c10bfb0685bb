/**
 * A definition and its values (`{ header, body, buttons }`) made into a template message, checked against the
 * definition: the one place that builds a template send's `components` (so nobody writes that array by hand) and
 * runs the check on them. `messages.sendTemplate`, `templateMessage` (for `sendMany`), `filledTemplate` and the
 * router's `ctx.replyTemplate` all build here. Portable: the conversations entry imports it.
 */
import { ConfigurationError, WaGatewayError } from '../core/errors.js';
import type {
  TemplateDefinition,
  TemplateValues,
  UntypedTemplateSendValues,
  ValuesArgument,
} from '../templates/define.js';
import { languageProblem, parameterProblem, TemplateSendError } from '../templates/send-check.js';
import type { OutboundTemplateMessage } from './message-schema.js';

/** The `template` object of a template message: name, language and (when there are values) components. */
export type FilledTemplate = OutboundTemplateMessage['template'];

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
 * `caller` names the public function in the errors of values it cannot read.
 */
export function templateComponents(
  definition: TemplateDefinition | undefined,
  values: UntypedTemplateSendValues,
  caller: string,
): object[] {
  if (typeof values !== 'object' || values === null)
    throw new ConfigurationError(`${caller} values must be an object: { header?, body?, buttons? }.`);
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
    throw new ConfigurationError(`${caller} values.body must be an array of the body's values, in order.`);
  if (body !== undefined && body.length > 0)
    components.push({ type: 'body', parameters: body.map(parameter) });
  const buttons = values.buttons;
  if (buttons !== undefined && (typeof buttons !== 'object' || buttons === null))
    throw new ConfigurationError(
      `${caller} values.buttons must be an object (or array) of values by button index.`,
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

/** The `template` object for `name` in `language` with `components` (none when there are no values). */
export function templateObject(name: string, language: string, components: object[]): FilledTemplate {
  return {
    name,
    language: { code: language },
    ...(components.length > 0 ? { components: components as FilledTemplate['components'] } : {}),
  };
}

/**
 * The checked `template` object of a send of `definition` with `values`, against the definition alone: what
 * `sendTemplate` sends without a catalogue, and what the builders return. A `language` other than the
 * definition's is refused (`template.language`): only a catalogue knows the other language's definition.
 */
export function checkedTemplate(caller: string, definition: unknown, values: unknown = {}): FilledTemplate {
  // Hostile arguments (a throwing getter, a Proxy) end in a typed error, never a bare TypeError.
  try {
    if (
      typeof definition !== 'object' ||
      definition === null ||
      typeof (definition as { name?: unknown }).name !== 'string' ||
      typeof (definition as { language?: unknown }).language !== 'string'
    )
      throw new ConfigurationError(`${caller} takes a definition (from defineTemplate) and its values.`);
    const d = definition as TemplateDefinition;
    const v = values as UntypedTemplateSendValues;
    const language = (typeof v === 'object' && v !== null ? v.language : undefined) ?? d.language;
    const own = language === d.language ? d : undefined;
    const components = templateComponents(own, v, caller);
    const problem = own ? parameterProblem(own, components) : languageProblem([d.language], language);
    if (problem) throw new TemplateSendError({ name: d.name, language }, problem);
    return templateObject(d.name, language, components);
  } catch (error) {
    throw readError(caller, error);
  }
}

/** `error` as thrown by the SDK, or a `ConfigurationError` saying the arguments could not be read. */
export function readError(caller: string, error: unknown): WaGatewayError {
  if (error instanceof WaGatewayError) return error;
  return new ConfigurationError(
    `${caller} could not read its arguments (${error instanceof Error ? error.name : typeof error}): pass a definition (or a name), and plain values.`,
    { cause: error },
  );
}

/**
 * The `template` object of a message of `definition` with `values` (name, language, components), built and
 * checked as `sendTemplate` does it: a wrong number of body values, a missing URL button value or a header value
 * the template has no place for does not compile, and at run time throws `TemplateSendError` (nothing is sent).
 * It is what `ctx.replyTemplate` and the router's `fallbackTemplate` take as one value, and the `template` of
 * `messages.send`.
 *
 * @example
 * import { filledTemplate } from 'wa-gateway-sdk';
 * await gw.messages.send({ to: '998901234567', type: 'template', template: filledTemplate(orderShipped, {
 *   header: '#1042', body: ['Ali', '#1042'], buttons: { 0: '1042' },
 * }) });
 */
export function filledTemplate<const D extends TemplateDefinition>(
  definition: D,
  ...[values]: ValuesArgument<TemplateValues<D>>
): FilledTemplate {
  return checkedTemplate('filledTemplate', definition, values);
}

/**
 * A template message to `to` of `definition` with `values`, built and checked as `sendTemplate` does it (a
 * mismatch does not compile, and at run time throws `TemplateSendError`): the typed way to give `sendMany` template
 * messages. `sendMany` still checks each against the client's catalogue, when it has one.
 *
 * @example
 * import { templateMessage } from 'wa-gateway-sdk';
 * const messages = customers.map((c) =>
 *   templateMessage(c.phone, orderShipped, { header: c.order, body: [c.name, c.order], buttons: { 0: c.order } }),
 * );
 * for await (const result of gw.messages.sendMany(messages)) console.log(result.index, result.ok);
 */
export function templateMessage<const D extends TemplateDefinition>(
  to: string,
  definition: D,
  ...[values]: ValuesArgument<TemplateValues<D>>
): OutboundTemplateMessage {
  return { to, type: 'template', template: checkedTemplate('templateMessage', definition, values) };
}
