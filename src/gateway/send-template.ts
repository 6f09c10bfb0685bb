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
    // The store's own failure is not the arguments': it rejects as it is, so the send turns it into `NotSentError`.
    throw error instanceof StoreFailure ? error.error : readError(CALLER, error);
  }
}

const CALLER = 'sendTemplate';

/** A rejection of the catalogue's store, carried past the argument reads' `readError`. */
class StoreFailure {
  constructor(readonly error: unknown) {}
}

function fromStore<T>(read: Promise<T>): Promise<T> {
  return read.catch((error: unknown) => Promise.reject(new StoreFailure(error)));
}

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
  let given: TemplateDefinition | undefined;
  if (typeof template === 'string') {
    name = template;
    language = values.language ?? (await onlyLanguage(catalog, template));
  } else if (typeof template === 'object' && template !== null && typeof template.name === 'string') {
    name = template.name;
    language = values.language ?? template.language;
    if (language === template.language) given = template;
  } else {
    throw new ConfigurationError('sendTemplate takes a definition (from defineTemplate) or a template name.');
  }
  const found = await fromStore(catalog.lookup(name, language));
  const definition = given ?? found.entry?.definition;
  const components = templateComponents(definition, values, CALLER);
  const problem = catalog.problemOf(found, { name, language: { code: language }, components });
  if (problem) throw new TemplateSendError({ name, language }, problem);
  if (definition === undefined && components.some((c) => (c as { type: string }).type !== 'body'))
    throw noDefinition(name, language);
  return templateObject(name, language, components);
}

/** The one language a catalogue knows `name` in; a send by name without `language` needs exactly one. */
async function onlyLanguage(catalog: TemplateCatalog, name: string): Promise<string> {
  const languages = await fromStore(catalog.languages(name));
  if (languages.length === 1) return languages[0]!;
  if (languages.length === 0)
    throw new TemplateSendError({ name, language: '(none given)' }, unknownProblem(name));
  throw new ConfigurationError(
    `sendTemplate('${name}') needs { language }: the catalogue has it in ${languages.join(', ')}.`,
  );
}

/**
 * A send by name of a template the catalogue knows only by its state (`catalog.record`, a status event): how its
 * header and buttons take their values (a media kind, a URL or a quick-reply payload) is in the definition alone.
 */
function noDefinition(name: string, language: string): ConfigurationError {
  return new ConfigurationError(
    `sendTemplate('${name}') in ${language}: the catalogue has no definition of ${name} (${language}), only its ` +
      'state, so it cannot build header or button values: give the catalogue its definition (definitions, ' +
      'catalog.define), or send a raw template message with messages.send. Without a definition, sendTemplate ' +
      'sends body values only.',
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
