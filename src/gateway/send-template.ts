/**
 * `messages.sendTemplate`'s work before the request: find the definition (given, or from the client's catalogue),
 * build the message with `template-message.ts`, and check it against the definition or the catalogue with the one
 * check the sandbox uses too (`templates/send-check.ts`).
 */
import { ConfigurationError } from '../core/errors.js';
import type { TemplateCatalog } from '../templates/catalog.js';
import type { TemplateDefinition, UntypedTemplateSendValues } from '../templates/define.js';
import { TemplateSendError, type TemplateSendInput, unknownProblem } from '../templates/send-check.js';
import type { OutboundTemplateMessage } from './message-schema.js';
import {
  checkedTemplate,
  type FilledTemplate,
  readError,
  templateComponents,
  templateObject,
} from './template-message.js';

/**
 * The message `sendTemplate(to, template, values)` sends, checked: throws `TemplateSendError` (before any
 * request) when the catalogue or the definition says the gateway would refuse it. Without a catalogue it is
 * `templateMessage`'s check; with one, the definition of the language sent comes from the catalogue, which also
 * knows the status.
 */
export async function sendTemplateMessage(
  catalog: TemplateCatalog | undefined,
  to: string,
  template: TemplateDefinition | string,
  values: UntypedTemplateSendValues = {},
): Promise<OutboundTemplateMessage> {
  if (catalog === undefined && typeof template !== 'string')
    return { to, type: 'template', template: checkedTemplate(CALLER, template, values) };
  try {
    return { to, type: 'template', template: await fromCatalog(catalog, template, values) };
  } catch (error) {
    throw readError(CALLER, error);
  }
}

const CALLER = 'sendTemplate';

async function fromCatalog(
  catalog: TemplateCatalog | undefined,
  template: TemplateDefinition | string,
  values: UntypedTemplateSendValues,
): Promise<FilledTemplate> {
  if (!catalog)
    throw new ConfigurationError(
      `sendTemplate('${String(template)}') by name needs a catalogue: new GatewayClient({ …, templates: catalog }), or pass the definition.`,
    );
  if (typeof values !== 'object' || values === null)
    throw new ConfigurationError(
      'sendTemplate values must be an object: { language?, header?, body?, buttons? }.',
    );
  let name: string;
  let language: string;
  let definition: TemplateDefinition | undefined;
  if (typeof template === 'string') {
    name = template;
    language = values.language ?? (await onlyLanguage(catalog, template));
    definition = (await catalog.get(name, language))?.definition;
  } else if (typeof template === 'object' && template !== null && typeof template.name === 'string') {
    name = template.name;
    language = values.language ?? template.language;
    definition = language === template.language ? template : (await catalog.get(name, language))?.definition;
  } else {
    throw new ConfigurationError('sendTemplate takes a definition (from defineTemplate) or a template name.');
  }
  const components = templateComponents(definition, values, CALLER);
  const problem = await catalog.problem({ name, language: { code: language }, components });
  if (problem) throw new TemplateSendError({ name, language }, problem);
  return templateObject(name, language, components);
}

/** The one language a catalogue knows `name` in; a send by name without `language` needs exactly one. */
async function onlyLanguage(catalog: TemplateCatalog, name: string): Promise<string> {
  const languages = await catalog.languages(name);
  if (languages.length === 1) return languages[0]!;
  if (languages.length === 0)
    throw new TemplateSendError({ name, language: '(none given)' }, unknownProblem(name));
  throw new ConfigurationError(
    `sendTemplate('${name}') needs { language }: the catalogue has it in ${languages.join(', ')}.`,
  );
}

/**
 * `messages.send`'s check of a raw template message when the client has a catalogue: the same rules as
 * `sendTemplate`, on the components as written. Any other message passes; a template message without a readable
 * `template` (sent with `validate: false`) is refused by the catalogue's check.
 */
export function checkTemplateMessage(catalog: TemplateCatalog, message: object): Promise<void> {
  if ((message as { type?: unknown }).type !== 'template') return Promise.resolve();
  return catalog.check((message as { template: TemplateSendInput }).template);
}
