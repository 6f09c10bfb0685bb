/**
 * THE check of a template send against the template it names: the gateway's rule "the count and types of
 * `components[].parameters` must match the approved template exactly", the status it must have, and the
 * language it must exist in. One piece of code for the SDK (which refuses before any request) and for the
 * sandbox's registry (which answers `GW_001`), so the two can never disagree. Portable, no I/O.
 */
import { brandError, WaGatewayError } from '../core/errors.js';
import type { TemplateDefinition } from './define.js';
import { scanVariables } from './rules/variables.js';

/** Stable ids of the rules a template send is checked by. */
export const TEMPLATE_SEND_RULES = [
  'template.unknown',
  'template.language',
  'template.status',
  'template.parameters.count',
  'template.parameters.type',
  'template.parameters.unexpected',
] as const;
export type TemplateSendRule = (typeof TEMPLATE_SEND_RULES)[number];

/** Why a template send would be refused: the rule, where, what the template expects and what was given. */
export interface TemplateSendProblem {
  rule: TemplateSendRule;
  /** The component at fault: `header`, `body`, `button 0 (url)`; absent for template-level rules. */
  component?: string;
  /** What the template expects: a parameter count, parameter types, `APPROVED`, or the languages it has. */
  expected: number | string | readonly string[];
  /** What the send gave: a count, a parameter type, a status, a language or a name. */
  given: number | string;
  /** The status, for `template.status`. */
  status?: string;
  /** The rejection reason, for `template.status` of a `REJECTED` template (`null` when none was given). */
  reason?: string | null;
  /** One sentence, without the template's name (the caller adds it). */
  message: string;
}

/** A template send as far as the check reads it: `template` of a template message. */
export interface TemplateSendInput {
  name: string;
  language: { code: string };
  components?: readonly unknown[] | undefined;
}

/** The parameters one component of a template takes, in the send's shape. */
export interface ExpectedComponent {
  /** `header`, `body` or `button:<index>`. */
  key: string;
  label: string;
  /** The parameter types allowed, one list per parameter, in order. */
  types: readonly (readonly string[])[];
}

/** Parameter types a body variable accepts (the spec's textual ones). */
export const TEXTUAL_PARAMETER_TYPES = ['text', 'currency', 'date_time'] as const;
const MEDIA_HEADER: Readonly<Record<string, string>> = {
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
};
const TEXT_ONLY = ['text'] as const;

/** The number of distinct `{{n}}` variables of a text (0 for none or no text). */
export function variableCount(text: string | undefined): number {
  return text ? scanVariables(text).distinct.length : 0;
}

/**
 * The parameters a send must carry for each component of `t`, in order: header (its variable, or the media),
 * body (one per variable), and each URL button with a variable (`button:<index>`). Quick-reply buttons may carry
 * a payload and are not listed; a LOCATION header takes no parameter the spec shows. An `AUTHENTICATION`
 * template's body is not listed: its text is generated upstream (the create request has none), and the spec does
 * not say what its send carries, so its body and its `OTP` button are not checked (see {@link parameterProblem}).
 */
export function expectedComponents(t: TemplateDefinition): readonly ExpectedComponent[] {
  // Every send of a definition asks this again: scan its texts once per definition object.
  let out = EXPECTED.get(t);
  if (out === undefined) {
    out = scanExpected(t);
    EXPECTED.set(t, out);
  }
  return out;
}

const EXPECTED = new WeakMap<object, readonly ExpectedComponent[]>();

function scanExpected(t: TemplateDefinition): ExpectedComponent[] {
  const out: ExpectedComponent[] = [];
  const header = t.header;
  if (header?.format === 'TEXT') {
    const n = variableCount(header.text);
    if (n > 0) out.push({ key: 'header', label: 'header', types: Array(n).fill(TEXT_ONLY) });
  } else if (header?.format && MEDIA_HEADER[header.format]) {
    out.push({ key: 'header', label: 'header', types: [[MEDIA_HEADER[header.format]!]] });
  }
  const n = isAuthentication(t) ? 0 : variableCount(t.body?.text);
  if (n > 0) out.push({ key: 'body', label: 'body', types: Array(n).fill(TEXTUAL_PARAMETER_TYPES) });
  t.buttons?.forEach((b, i) => {
    if (b.type === 'URL' && variableCount(b.url) > 0)
      out.push({ key: `button:${i}`, label: `button ${i} (url)`, types: [TEXT_ONLY] });
  });
  return out;
}

/** An `AUTHENTICATION` (one-time code) template: its approved body is generated upstream, not in its definition. */
function isAuthentication(t: TemplateDefinition): boolean {
  return t.category === 'AUTHENTICATION';
}

/**
 * Whether a component of `t` is one the check leaves to the server: an `AUTHENTICATION` template's body and its
 * `OTP` button (the one-time code goes there). The spec does not say what their parameters are.
 */
function uncheckedComponent(t: TemplateDefinition, key: string): boolean {
  if (!isAuthentication(t)) return false;
  if (key === 'body') return true;
  return key.startsWith('button:') && t.buttons?.[Number(key.slice('button:'.length))]?.type === 'OTP';
}

interface SendComponent {
  type?: unknown;
  sub_type?: unknown;
  index?: unknown;
  parameters?: unknown;
}

/** The component a send's component fills: `header`, `body`, `button:<index>`. */
function componentKey(c: SendComponent | undefined): string {
  return c?.type === 'button' ? `button:${String(c.index)}` : String(c?.type);
}

/**
 * Whether `components` (a send's `template.components`) match definition `t`: every expected component with the
 * right count and types of parameters, and nothing the template does not take. The first problem, or `undefined`.
 * An `AUTHENTICATION` template's body and `OTP` button take whatever the send gives them (the code, usually): the
 * spec does not say what they carry, so the server judges them. Every other rule still applies to it.
 */
export function parameterProblem(
  t: TemplateDefinition,
  components: readonly unknown[] | undefined,
): TemplateSendProblem | undefined {
  const given = new Map<string, readonly unknown[]>();
  const sent = (components ?? []) as readonly SendComponent[];
  for (const c of sent) {
    const key = componentKey(c);
    // The gateway matches each component once: a second one is parameters the template does not take.
    if (given.has(key)) return duplicateProblem(key, sent);
    const kind = c?.type === 'button' ? buttonProblem(t, key, c) : undefined;
    if (kind) return kind;
    given.set(key, Array.isArray(c?.parameters) ? c.parameters : []);
  }
  for (const e of expectedComponents(t)) {
    const params = given.get(e.key) ?? [];
    given.delete(e.key);
    if (params.length !== e.types.length)
      return {
        rule: 'template.parameters.count',
        component: e.label,
        expected: e.types.length,
        given: params.length,
        message: `${e.label} expects ${e.types.length} parameter(s), got ${params.length}.`,
      };
    for (let i = 0; i < params.length; i++) {
      const type = String((params[i] as { type?: unknown } | null)?.type);
      if (!e.types[i]!.includes(type))
        return {
          rule: 'template.parameters.type',
          component: `${e.label} parameter ${i + 1}`,
          expected: e.types[i]!,
          given: type,
          message: `${e.label} parameter ${i + 1} must be ${e.types[i]!.join(' or ')}, got ${type}.`,
        };
    }
  }
  for (const [key, params] of given) {
    if (params.length === 0 || uncheckedComponent(t, key)) continue;
    const button = key.startsWith('button:') ? t.buttons?.[Number(key.slice('button:'.length))] : undefined;
    if (button?.type === 'QUICK_REPLY') continue;
    const label = key.replace(':', ' ');
    return {
      rule: 'template.parameters.unexpected',
      component: label,
      expected: 0,
      given: params.length,
      message: key.startsWith('button:')
        ? `${label} takes no parameters.`
        : `${label} has ${params.length} parameter(s) the template does not take.`,
    };
  }
  return undefined;
}

/** The `sub_type` a send gives a button of each type, where the gateway's spec names one. */
const BUTTON_SUB_TYPE: Readonly<Record<string, string>> = { URL: 'url', QUICK_REPLY: 'quick_reply' };

/** `template.parameters.type` when a button component's `sub_type` is not its button's (a URL's `quick_reply`). */
function buttonProblem(
  t: TemplateDefinition,
  key: string,
  c: SendComponent,
): TemplateSendProblem | undefined {
  const button = t.buttons?.[Number(key.slice('button:'.length))];
  const expected = button && BUTTON_SUB_TYPE[button.type];
  const subType = String(c.sub_type);
  if (expected === undefined || subType === expected) return undefined;
  const label = `${key.replace(':', ' ')} (${expected})`;
  return {
    rule: 'template.parameters.type',
    component: label,
    expected: [expected],
    given: subType,
    message: `${label} must be sent with sub_type ${expected}, got ${subType}.`,
  };
}

/** `template.parameters.unexpected` for a component given more than once. */
function duplicateProblem(key: string, components: readonly SendComponent[]): TemplateSendProblem {
  const label = key.replace(':', ' ');
  const count = components.filter((c) => componentKey(c) === key).length;
  return {
    rule: 'template.parameters.unexpected',
    component: label,
    expected: 1,
    given: count,
    message: `${label} is given ${count} times; a template send carries each component once.`,
  };
}

/** `template.status` when `status` is not `APPROVED` (an unknown status included), else `undefined`. */
export function statusProblem(
  status: string | undefined,
  reason?: string | null,
): TemplateSendProblem | undefined {
  if (status === 'APPROVED') return undefined;
  const shown = status ?? 'UNKNOWN';
  const why =
    status === undefined
      ? ' (no status is known for it: push it, or feed its status events to the catalogue)'
      : status === 'REJECTED'
        ? reason
          ? ` (reason: ${reason})`
          : ' (no reason given)'
        : '';
  return {
    rule: 'template.status',
    expected: 'APPROVED',
    given: shown,
    status: shown,
    ...(status === 'REJECTED' ? { reason: reason ?? null } : {}),
    message: `is ${shown}, not APPROVED${why}.`,
  };
}

/** `template.language`: the template exists, but not in `language`. */
export function languageProblem(languages: readonly string[], language: string): TemplateSendProblem {
  return {
    rule: 'template.language',
    expected: languages,
    given: language,
    message: `has no ${language} version; it exists in ${languages.join(', ')}.`,
  };
}

/** `template.unknown`: the catalogue knows no template of that name. */
export function unknownProblem(name: string): TemplateSendProblem {
  return {
    rule: 'template.unknown',
    expected: 'a template the catalogue knows',
    given: name,
    message:
      'is not in the catalogue: add its definition, push it, or record it (catalog.record) if it was created elsewhere.',
  };
}

/**
 * A template send refused locally, before any request: the template does not exist in the catalogue (or not
 * in that language), is not `APPROVED`, or the parameters do not match it. Nothing was sent. For an unknown name
 * or language and for parameters that do not match, the gateway's spec states the answer: a `GW_001` (502) after
 * authentication, rate limiting and billing. For a status other than `APPROVED` it states none (only that the
 * template must be approved), and the message claims none.
 *
 * @example
 * try { await gw.messages.sendTemplate(to, orderShipped, { body: ['Ali', '#1042'] }) }
 * catch (e) { if (e instanceof TemplateSendError) console.log(e.rule, e.template, e.expected, e.given) }
 */
export class TemplateSendError extends WaGatewayError {
  override name = 'TemplateSendError';
  /** The rule that refused the send (`template.parameters.count`, `template.status`, ...). */
  readonly rule: TemplateSendRule;
  /** The template as the send named it. */
  readonly template: { name: string; language: string };
  readonly component: string | undefined;
  readonly expected: number | string | readonly string[];
  readonly given: number | string;
  /** For `template.status`: the status the catalogue holds. */
  readonly status: string | undefined;
  /** For a `REJECTED` template: the reason its status event carried. */
  readonly reason: string | null | undefined;
  /** Refused before any request: resending the corrected message cannot duplicate it (`sendMany`'s `notSent`). */
  readonly mayHaveBeenSent = false;

  constructor(template: { name: string; language: string }, problem: TemplateSendProblem) {
    super(
      `Template ${template.name} (${template.language}) was not sent: ${problem.message} [${problem.rule}] ` +
        (problem.rule === 'template.status'
          ? 'Nothing was sent; the spec sends approved templates only.'
          : 'Nothing was sent; the gateway would have refused it with GW_001.'),
    );
    this.rule = problem.rule;
    this.template = { name: template.name, language: template.language };
    this.component = problem.component;
    this.expected = problem.expected;
    this.given = problem.given;
    this.status = problem.status;
    this.reason = problem.reason;
  }
}
brandError(TemplateSendError, 'TemplateSendError');
