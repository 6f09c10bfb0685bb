/**
 * Templates as code: `defineTemplate` returns a template create request with its send values in its type (how
 * many body values, what the header takes, which buttons take a value), so a send that does not match it does
 * not compile. Types only, plus one validation: portable, no I/O.
 */
import type { DeepReadonly } from '../core/plain-data.js';
import type { TemplateCreateRequest } from './schema.js';
import { assertValidTemplate } from './validate.js';

/** A template create request as `defineTemplate` takes it: any readonly (`as const`) form is accepted. */
export type TemplateDefinition = DeepReadonly<TemplateCreateRequest>;

/** The `n` of every `{{n}}` in a literal text, as a union of digit strings (`'1' | '2'`). */
export type TemplateVariables<S extends string> = S extends `${string}{{${infer N}}}${infer Rest}`
  ? (N extends `${number}` ? N : never) | TemplateVariables<Rest>
  : never;

/** `[V, V, ...]`, one `V` per variable numbered 1..n without gaps (the rule table refuses gaps). */
type ValuesOf<U, V, Acc extends V[] = []> = `${[...Acc, V]['length']}` extends U
  ? ValuesOf<U, V, [...Acc, V]>
  : Acc;

/** A body variable's value: a string (sent as a `text` parameter), or a `currency` / `date_time` parameter. */
export type TemplateBodyValue =
  | string
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'currency'; readonly currency: Readonly<Record<string, unknown>> }
  | { readonly type: 'date_time'; readonly date_time: Readonly<Record<string, unknown>> };

/** A media header's value: the public URL of the image, video or document. */
export interface TemplateMediaValue {
  readonly link: string;
}

/** The body values a text needs: a tuple when the text is a literal, an array when it is only `string`. */
type TextValues<T, V> = string extends T
  ? readonly V[]
  : T extends string
    ? Readonly<ValuesOf<TemplateVariables<T>, V>>
    : readonly [];

type HasVariable<T> = string extends T
  ? boolean
  : [TemplateVariables<T & string>] extends [never]
    ? false
    : true;

/** What `header` takes for a header: a string for a TEXT header with a variable, a link for media. */
type HeaderValueOf<H> = H extends { readonly format: 'TEXT'; readonly text: infer T }
  ? HasVariable<T> extends false
    ? never
    : string
  : H extends { readonly format: 'IMAGE' | 'VIDEO' | 'DOCUMENT' }
    ? TemplateMediaValue
    : never;

/** What a button takes: a string for a URL button with a variable (required), a payload for a quick reply. */
type ButtonValueOf<B> = B extends { readonly type: 'URL'; readonly url: infer U }
  ? HasVariable<U> extends false
    ? never
    : string
  : B extends { readonly type: 'QUICK_REPLY' }
    ? string
    : never;

type Indices<Bs> = Bs extends readonly unknown[] ? Extract<keyof Bs, `${number}`> : never;
type RequiredButtons<Bs extends readonly unknown[]> = {
  [K in Indices<Bs> as Bs[K] extends { readonly type: 'URL' }
    ? [ButtonValueOf<Bs[K]>] extends [never]
      ? never
      : K
    : never]: string;
};
// An OTP button (AUTHENTICATION only) may take the one-time code: the spec does not say, so it is not refused.
type OptionalButtons<Bs extends readonly unknown[]> = {
  [K in Indices<Bs> as Bs[K] extends { readonly type: 'QUICK_REPLY' | 'OTP' } ? K : never]?: string;
};

/** A union of object types as one object type, so that an error prints its fields, not the aliases behind them. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The name of a definition, for the compiler's messages (`order_shipped`). */
type NameOf<D> = D extends { readonly name: infer N extends string } ? N : 'this template';

/**
 * The button values of a definition, by button index: `{ 0: 'ORDER-1042' }`. A URL button with a variable must
 * have one; a quick-reply button may have a payload, an OTP button the one-time code; other buttons take none.
 * An array works too.
 */
export type TemplateButtonValues<D> = D extends { readonly buttons: infer Bs extends readonly unknown[] }
  ? number extends Bs['length']
    ? Readonly<Record<number, string | undefined>>
    : Flat<RequiredButtons<Bs> & OptionalButtons<Bs>>
  : never;

// Where the definition has nothing to fill, the place takes a sentence instead of `never`: a value given there
// fails to compile with that sentence as the expected type (`'"x"' is not assignable to '"hello takes no header
// value"'`), not with `undefined`.
// An AUTHENTICATION template's body is generated upstream: its values (the code, usually) are the caller's.
type BodyPart<D> = D extends { readonly category: 'AUTHENTICATION' }
  ? { body?: readonly TemplateBodyValue[] }
  : D extends { readonly body: { readonly text?: infer T } }
    ? TextValues<T, TemplateBodyValue> extends readonly []
      ? { body?: readonly [] }
      : { body: TextValues<T, TemplateBodyValue> }
    : { body?: readonly TemplateBodyValue[] };

type HeaderPart<D> = D extends { readonly header: infer H }
  ? [HeaderValueOf<H>] extends [never]
    ? { header?: `${NameOf<D>} takes no header value` }
    : { header: HeaderValueOf<H> }
  : { header?: `${NameOf<D>} takes no header value` };

type ButtonsPart<D> = D extends { readonly buttons: infer Bs extends readonly unknown[] }
  ? number extends Bs['length']
    ? { buttons?: TemplateButtonValues<D> }
    : [keyof TemplateButtonValues<D>] extends [never]
      ? { buttons?: `${NameOf<D>} takes no button values` }
      : [keyof RequiredButtons<Bs>] extends [never]
        ? { buttons?: TemplateButtonValues<D> }
        : { buttons: TemplateButtonValues<D> }
  : { buttons?: `${NameOf<D>} takes no button values` };

/**
 * The values a message of definition `D` needs: `body` (one value per body variable, in order), `header` (the TEXT
 * header's variable or the media link) and `buttons` (by index), each required exactly when the definition has
 * something to fill. An `AUTHENTICATION` template's body (generated upstream) takes any number of values, its OTP
 * button an optional one: the spec does not say what they carry. What `templateMessage`, `filledTemplate` and
 * `ctx.replyTemplate` take with a definition.
 */
export type TemplateValues<D = TemplateDefinition> = TemplateDefinition extends D
  ? Omit<UntypedTemplateSendValues, 'language'> // a definition not known to the compiler (from JSON)
  : Flat<BodyPart<D> & HeaderPart<D> & ButtonsPart<D>>;

/**
 * The values `messages.sendTemplate` needs for definition `D`: {@link TemplateValues}, and `language`, which picks
 * another language of the same template from the client's catalogue (by default the definition's own).
 */
export type TemplateSendValues<D = TemplateDefinition> = Flat<{ language?: string } & TemplateValues<D>>;

/**
 * The values argument that follows a definition: `[values]`, or `[values?]` when the definition has nothing to
 * fill (`templateMessage(to, hello)`). A rest parameter of this type keeps a function to one signature, so a
 * mismatch is reported as the values' own error under every TypeScript version (an overload set is reported by
 * its last overload under TypeScript 7).
 */
export type ValuesArgument<V> = Record<never, never> extends V ? [values?: V] : [values: V];

/** The values of a send whose definition is not known to the compiler (a name, or a JSON definition). */
export interface UntypedTemplateSendValues {
  language?: string;
  header?: string | TemplateMediaValue;
  body?: readonly TemplateBodyValue[];
  buttons?: Readonly<Record<number, string | undefined>>;
}

/**
 * Declares a template in code: checks it against every rule of the table (throws `TemplateValidationError`
 * listing every issue, so an invalid definition fails where it is written) and returns it unchanged, typed
 * from its literal values. `messages.sendTemplate` then takes exactly the values it needs: a wrong number of
 * body values, a missing URL button value or a header value the template has no place for does not compile.
 *
 * @example
 * import { defineTemplate } from 'wa-gateway-sdk/templates';
 * export const orderShipped = defineTemplate({
 *   name: 'order_shipped',
 *   language: 'en_US',
 *   category: 'UTILITY',
 *   body: { text: 'Hi {{1}}, order {{2}} is on its way.', examples: ['Ali', '#1042'] },
 * });
 * // gw.messages.sendTemplate('998901234567', orderShipped, { body: ['Ali', '#1042'] });
 */
export function defineTemplate<const D extends TemplateDefinition>(definition: D): D {
  assertValidTemplate(definition);
  return definition;
}
