/**
 * `messages.sendTemplate`'s work before the request: find the definition, build the gateway's `components`
 * from `{ header, body, buttons }` (so nobody writes that array by hand), and check the send against the
 * definition and the client's catalogue with the one check the sandbox uses too (`templates/send-check.ts`).
 */
import { ConfigurationError, WaGatewayError } from '../core/errors.js';
import type { TemplateCatalog } from '../templates/catalog.js';
import type { TemplateDefinition, UntypedTemplateSendValues } from '../templates/define.js';
import {
  languageProblem,
  parameterProblem,
  TemplateSendError,
  type TemplateSendInput,
  type TemplateSendProblem,
  unknownProblem,
} from '../templates/send-check.js';
import { templateComponents } from './template-message.js';

/** A template message as `messages.send` takes it, built by `sendTemplate`. */
export interface BuiltTemplateMessage {
  to: string;
  type: 'template';
  template: { name: string; language: { code: string }; components?: object[] };
}

/**
 * The message `sendTemplate(to, template, values)` sends, checked: throws `TemplateSendError` (before any
 * request) when the catalogue or the definition says the gateway would refuse it.
 */
export function templateMessage(
  catalog: TemplateCatalog | undefined,
  to: string,
  template: TemplateDefinition | string,
  values: UntypedTemplateSendValues = {},
): Promise<BuiltTemplateMessage> {
  // Hostile arguments (a throwing getter, a Proxy) end in a typed error, never a bare TypeError.
  return build(catalog, to, template, values).catch((error: unknown) => {
    if (error instanceof WaGatewayError) throw error;
    throw new ConfigurationError(
      `sendTemplate could not read its arguments (${error instanceof Error ? error.name : typeof error}): pass a definition or a name, and plain values.`,
      { cause: error },
    );
  });
}

async function build(
  catalog: TemplateCatalog | undefined,
  to: string,
  template: TemplateDefinition | string,
  values: UntypedTemplateSendValues,
): Promise<BuiltTemplateMessage> {
  if (typeof values !== 'object' || values === null)
    throw new ConfigurationError(
      'sendTemplate values must be an object: { language?, header?, body?, buttons? }.',
    );
  let name: string;
  let language: string;
  let definition: TemplateDefinition | undefined;
  if (typeof template === 'string') {
    if (!catalog)
      throw new ConfigurationError(
        `sendTemplate('${template}') by name needs a catalogue: new GatewayClient({ …, templates: catalog }), or pass the definition.`,
      );
    name = template;
    language = values.language ?? (await onlyLanguage(catalog, template));
    definition = (await catalog.get(name, language))?.definition;
  } else if (typeof template === 'object' && template !== null && typeof template.name === 'string') {
    name = template.name;
    language = values.language ?? template.language;
    definition = language === template.language ? template : (await catalog?.get(name, language))?.definition;
  } else {
    throw new ConfigurationError('sendTemplate takes a definition (from defineTemplate) or a template name.');
  }
  const components = templateComponents(definition, values);
  const send: TemplateSendInput = { name, language: { code: language }, components };
  const problem: TemplateSendProblem | undefined = catalog
    ? await catalog.problem(send)
    : definition
      ? parameterProblem(definition, components)
      : languageProblem([(template as TemplateDefinition).language], language);
  if (problem) throw new TemplateSendError({ name, language }, problem);
  return {
    to,
    type: 'template',
    template: { name, language: { code: language }, ...(components.length > 0 ? { components } : {}) },
  };
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
 * `sendTemplate`, on the components as written.
 */
export function checkTemplateMessage(catalog: TemplateCatalog, message: object): Promise<void> {
  const template = (message as { template?: TemplateSendInput }).template;
  return template ? catalog.check(template) : Promise.resolve();
}
