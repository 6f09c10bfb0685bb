/**
 * Every rule the generated send checker (`src/gateway/checkers.generated.ts`) applies, broken alone: one message
 * per rule that breaks only that rule, built from a valid base (`test/fuzz/message-bases.ts`). The generated
 * checker must refuse it by itself, `validateMessage` must refuse it, and the schema must explain it with exactly
 * one issue carrying the rule's SDK id. The message just inside each limit is accepted by both. A rule dropped
 * from the generated file (or from the schema) turns exactly one row red.
 */
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { safeCheck } from '../../src/core/zod.js';
import { checkOutboundMessage } from '../../src/gateway/checkers.generated.js';
import { outboundMessageSchema } from '../../src/gateway/message-schema.js';
import { toMessageIssues, validateMessage } from '../../src/gateway/validate-message.js';
import {
  audioBase,
  buttonsBase,
  documentBase,
  imageBase,
  listBase,
  MESSAGE_BASES,
  templateBase,
  textBase,
} from '../fuzz/message-bases.js';
import { type Edit, edited, GONE, type TreePath } from '../fuzz/tree-mutations.js';

const EMOJI = '😀'; // one code point, two UTF-16 code units: limits count code points
const text = (n: number) => EMOJI.repeat(n);
const reply = (id: string) => ({ type: 'reply', reply: { id, title: id.slice(0, 20) } });
const row = (id: string) => ({ id, title: id.slice(0, 24) });

// Paths into the bases.
const T = ['template'] as const;
const C = [...T, 'components'] as const;
const HEADER = [...C, 0] as const;
const BODY = [...C, 1] as const;
const URL_BUTTON = [...C, 2] as const;
const P = (i: number) => [...BODY, 'parameters', i] as const; // body parameters: text, currency, date_time, document, video
const HEADER_IMAGE = [...HEADER, 'parameters', 0] as const;
const I = ['interactive'] as const;
const BUTTONS = [...I, 'action', 'buttons'] as const;
const SECTIONS = [...I, 'action', 'sections'] as const;
const ROW = [...SECTIONS, 0, 'rows', 0] as const;

/**
 * A message that breaks one rule: what is broken, the message, the SDK rule id of its one issue and where that
 * issue is (the edited key's path, but for a count: the array's).
 */
interface Broken {
  name: string;
  message: unknown;
  rule: string;
  at: TreePath;
}
const broken = (name: string, base: object, rule: string, ...edits: Edit[]): Broken => ({
  name,
  message: edited(base, ...edits),
  rule,
  at: edits[edits.length - 1]![0],
});
/** `broken`, for an edit that appends to an array: the issue is the array's. */
const appended = (name: string, base: object, rule: string, array: TreePath, item: unknown): Broken => ({
  ...broken(name, base, rule, [[...array, (pathValue(base, array) as unknown[]).length], item]),
  at: array,
});

function pathValue(base: object, path: TreePath): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], base);
}

const BROKEN: Broken[] = [
  // The recipient: each rule of `recipientSchema`, on every message type's `to` alike (the text message's here).
  broken('to: empty', textBase, 'to.required', [['to'], '']),
  broken('to: formatted (+)', textBase, 'to.digits_only', [['to'], '+998901234567']),
  broken('to: a letter', textBase, 'to.digits_only', [['to'], '99890123456a']),
  broken('to: a leading 0', textBase, 'to.country_code', [['to'], '0998901234567']),
  broken('to: 16 digits', textBase, 'to.max_length', [['to'], '9'.repeat(16)]),
  broken('to: a number', textBase, 'to.type', [['to'], 998901234567]),
  broken('to: missing', textBase, 'to.required', [['to'], GONE]),
  broken('to: null', textBase, 'to.type', [['to'], null]),
  broken('to: missing (template)', templateBase, 'to.required', [['to'], GONE]),
  broken('to: missing (interactive)', buttonsBase, 'to.required', [['to'], GONE]),
  // The message's type and its closed top level.
  broken('type: unknown (video)', textBase, 'type.enum', [['type'], 'video']),
  broken('type: missing', textBase, 'type.enum', [['type'], GONE]),
  broken('type: null', textBase, 'type.enum', [['type'], null]),
  broken('unknown top-level key', textBase, 'unknown_field', [['isFake'], true]),
  broken('unknown top-level key (image)', imageBase, 'unknown_field', [['caption'], 'x']),
  broken('unknown top-level key (template)', templateBase, 'unknown_field', [['components'], []]),
  broken('unknown top-level key (interactive)', listBase, 'unknown_field', [['body'], { text: 'x' }]),
  // text
  broken('text: missing', textBase, 'text.required', [['text'], GONE]),
  broken('text: a string', textBase, 'text.type', [['text'], 'Hello']),
  broken('text.body: missing', textBase, 'text.body.required', [['text', 'body'], GONE]),
  broken('text.body: empty', textBase, 'text.body.required', [['text', 'body'], '']),
  broken('text.body: 4097 characters', textBase, 'text.body.max_length', [['text', 'body'], text(4097)]),
  broken('text.body: a number', textBase, 'text.body.type', [['text', 'body'], 1]),
  broken('text.preview_url: a string', textBase, 'text.preview_url.type', [['text', 'preview_url'], 'true']),
  broken('text.preview_url: null', textBase, 'text.preview_url.type', [['text', 'preview_url'], null]),
  broken('text: unknown key', textBase, 'unknown_field', [['text', 'previewUrl'], true]),
  // image, audio, document
  broken('image: missing', imageBase, 'image.required', [['image'], GONE]),
  broken('image.link: missing', imageBase, 'image.link.required', [['image', 'link'], GONE]),
  broken('image.link: not http(s)', imageBase, 'image.link.invalid', [
    ['image', 'link'],
    'ftp://cdn.example.com/a.jpg',
  ]),
  broken('image.link: a number', imageBase, 'image.link.type', [['image', 'link'], 1]),
  broken('image.caption: a number', imageBase, 'image.caption.type', [['image', 'caption'], 1]),
  broken('image.caption: null', imageBase, 'image.caption.type', [['image', 'caption'], null]),
  broken('image: unknown key', imageBase, 'unknown_field', [['image', 'filename'], 'a.jpg']),
  broken('audio: missing', audioBase, 'audio.required', [['audio'], GONE]),
  broken('audio.link: missing', audioBase, 'audio.link.required', [['audio', 'link'], GONE]),
  broken('audio.link: not a URL', audioBase, 'audio.link.invalid', [['audio', 'link'], 'a.ogg']),
  broken('audio: a caption (unknown key)', audioBase, 'unknown_field', [['audio', 'caption'], 'x']),
  broken('document: missing', documentBase, 'document.required', [['document'], GONE]),
  broken('document.link: missing', documentBase, 'document.link.required', [['document', 'link'], GONE]),
  broken('document.link: not http(s)', documentBase, 'document.link.invalid', [
    ['document', 'link'],
    'file:///a.pdf',
  ]),
  broken('document.caption: null', documentBase, 'document.caption.type', [['document', 'caption'], null]),
  broken('document.filename: a number', documentBase, 'document.filename.type', [
    ['document', 'filename'],
    1,
  ]),
  broken('document.filename: null', documentBase, 'document.filename.type', [['document', 'filename'], null]),
  broken('document: unknown key', documentBase, 'unknown_field', [['document', 'name'], 'a.pdf']),
  // template
  broken('template: missing', templateBase, 'template.required', [T, GONE]),
  broken('template.name: missing', templateBase, 'template.name.required', [[...T, 'name'], GONE]),
  broken('template.name: empty', templateBase, 'template.name.required', [[...T, 'name'], '']),
  broken('template.name: null', templateBase, 'template.name.type', [[...T, 'name'], null]),
  broken('template.language: missing', templateBase, 'template.language.required', [
    [...T, 'language'],
    GONE,
  ]),
  broken('template.language: a bare code', templateBase, 'template.language.type', [
    [...T, 'language'],
    'en',
  ]),
  broken('template.language.code: missing', templateBase, 'template.language.code.required', [
    [...T, 'language', 'code'],
    GONE,
  ]),
  broken('template.language.code: empty', templateBase, 'template.language.code.required', [
    [...T, 'language', 'code'],
    '',
  ]),
  broken('template.language: unknown key', templateBase, 'unknown_field', [
    [...T, 'language', 'policy'],
    'deterministic',
  ]),
  broken('template: unknown key', templateBase, 'unknown_field', [[...T, 'namespace'], 'x']),
  broken('template.components: null', templateBase, 'template.components.type', [C, null]),
  broken('template.components: an object', templateBase, 'template.components.type', [C, {}]),
  broken('component.type: footer', templateBase, 'template.components.type.enum', [
    [...BODY, 'type'],
    'footer',
  ]),
  broken('component.type: missing', templateBase, 'template.components.type.enum', [[...BODY, 'type'], GONE]),
  broken('component: unknown key', templateBase, 'unknown_field', [[...BODY, 'text'], 'x']),
  broken('component.parameters: missing', templateBase, 'template.components.parameters.required', [
    [...BODY, 'parameters'],
    GONE,
  ]),
  broken('component.parameters: null', templateBase, 'template.components.parameters.type', [
    [...BODY, 'parameters'],
    null,
  ]),
  broken('button: sub_type missing (R10)', templateBase, 'template.components.sub_type.required', [
    [...URL_BUTTON, 'sub_type'],
    GONE,
  ]),
  broken('button: sub_type unknown', templateBase, 'template.components.sub_type.enum', [
    [...URL_BUTTON, 'sub_type'],
    'call',
  ]),
  broken('button: sub_type null', templateBase, 'template.components.sub_type.enum', [
    [...URL_BUTTON, 'sub_type'],
    null,
  ]),
  broken('header: sub_type (R11)', templateBase, 'template.components.sub_type.not_allowed', [
    [...HEADER, 'sub_type'],
    'url',
  ]),
  broken('body: sub_type (R11)', templateBase, 'template.components.sub_type.not_allowed', [
    [...BODY, 'sub_type'],
    'quick_reply',
  ]),
  broken('button: index missing (R12)', templateBase, 'template.components.index.required', [
    [...URL_BUTTON, 'index'],
    GONE,
  ]),
  broken('button: index 3', templateBase, 'template.components.index.enum', [[...URL_BUTTON, 'index'], 3]),
  broken("button: index '3'", templateBase, 'template.components.index.enum', [
    [...URL_BUTTON, 'index'],
    '3',
  ]),
  broken('button: index 1.5', templateBase, 'template.components.index.enum', [
    [...URL_BUTTON, 'index'],
    1.5,
  ]),
  broken('button: index -1', templateBase, 'template.components.index.enum', [[...URL_BUTTON, 'index'], -1]),
  broken('button: index null', templateBase, 'template.components.index.enum', [
    [...URL_BUTTON, 'index'],
    null,
  ]),
  broken('header: index (R13)', templateBase, 'template.components.index.not_allowed', [
    [...HEADER, 'index'],
    '0',
  ]),
  broken('body: index as a number (R13)', templateBase, 'template.components.index.not_allowed', [
    [...BODY, 'index'],
    0,
  ]),
  // template parameters: each type needs its value (R4-R9), closed, typed
  broken('parameter text without text (R4)', templateBase, 'template.components.parameters.value.required', [
    [...P(0), 'text'],
    GONE,
  ]),
  broken(
    'parameter image without image (R5)',
    templateBase,
    'template.components.parameters.value.required',
    [[...HEADER_IMAGE, 'image'], GONE],
  ),
  broken(
    'parameter document without document (R6)',
    templateBase,
    'template.components.parameters.value.required',
    [[...P(3), 'document'], GONE],
  ),
  broken(
    'parameter video without video (R7)',
    templateBase,
    'template.components.parameters.value.required',
    [[...P(4), 'video'], GONE],
  ),
  broken(
    'parameter currency without currency (R8)',
    templateBase,
    'template.components.parameters.value.required',
    [[...P(1), 'currency'], GONE],
  ),
  broken(
    'parameter date_time without date_time (R9)',
    templateBase,
    'template.components.parameters.value.required',
    [[...P(2), 'date_time'], GONE],
  ),
  broken('parameter type: location', templateBase, 'template.components.parameters.type.enum', [
    [...P(0), 'type'],
    'location',
  ]),
  broken('parameter type: missing', templateBase, 'template.components.parameters.type.enum', [
    [...P(0), 'type'],
    GONE,
  ]),
  broken('parameter: unknown key', templateBase, 'unknown_field', [[...P(0), 'value'], 'x']),
  broken('parameter text: a number', templateBase, 'template.components.parameters.text.type', [
    [...P(0), 'text'],
    1,
  ]),
  broken('parameter text: null', templateBase, 'template.components.parameters.text.type', [
    [...P(0), 'text'],
    null,
  ]),
  broken('parameter image: null', templateBase, 'template.components.parameters.image.type', [
    [...HEADER_IMAGE, 'image'],
    null,
  ]),
  broken(
    'parameter image.link: missing',
    templateBase,
    'template.components.parameters.image.link.required',
    [[...HEADER_IMAGE, 'image', 'link'], GONE],
  ),
  broken(
    'parameter image.link: not http(s)',
    templateBase,
    'template.components.parameters.image.link.invalid',
    [[...HEADER_IMAGE, 'image', 'link'], 'h.jpg'],
  ),
  broken('parameter image: unknown key', templateBase, 'unknown_field', [
    [...HEADER_IMAGE, 'image', 'caption'],
    'x',
  ]),
  broken('parameter currency: null', templateBase, 'template.components.parameters.currency.type', [
    [...P(1), 'currency'],
    null,
  ]),
  broken('parameter currency: a string', templateBase, 'template.components.parameters.currency.type', [
    [...P(1), 'currency'],
    'USD 10',
  ]),
  broken('parameter date_time: null', templateBase, 'template.components.parameters.date_time.type', [
    [...P(2), 'date_time'],
    null,
  ]),
  broken('parameter document: null', templateBase, 'template.components.parameters.document.type', [
    [...P(3), 'document'],
    null,
  ]),
  broken('parameter video: an array', templateBase, 'template.components.parameters.video.type', [
    [...P(4), 'video'],
    [],
  ]),
  // interactive: button
  broken('interactive: missing', buttonsBase, 'interactive.required', [I, GONE]),
  broken('interactive.type: carousel', buttonsBase, 'interactive.type.enum', [[...I, 'type'], 'carousel']),
  broken('interactive: unknown key', buttonsBase, 'unknown_field', [[...I, 'header'], { type: 'text' }]),
  broken('interactive.body: missing', buttonsBase, 'interactive.body.required', [[...I, 'body'], GONE]),
  broken('interactive.body.text: empty', buttonsBase, 'interactive.body.text.required', [
    [...I, 'body', 'text'],
    '',
  ]),
  broken('interactive.body: unknown key', buttonsBase, 'unknown_field', [[...I, 'body', 'footer'], 'x']),
  broken('interactive.action: missing', buttonsBase, 'interactive.action.required', [[...I, 'action'], GONE]),
  broken('interactive.action: unknown key', buttonsBase, 'unknown_field', [
    [...I, 'action', 'button'],
    'Open',
  ]),
  broken('buttons: missing', buttonsBase, 'interactive.action.buttons.required', [BUTTONS, GONE]),
  broken('buttons: none (R16)', buttonsBase, 'interactive.action.buttons.min_items', [BUTTONS, []]),
  appended('buttons: 4 (R17)', buttonsBase, 'interactive.action.buttons.max_items', BUTTONS, reply('soon')),
  broken('buttons: a repeated id', buttonsBase, 'interactive.action.buttons.reply.id.unique', [
    [...BUTTONS, 2, 'reply', 'id'],
    'yes',
  ]),
  broken('button.type: not reply', buttonsBase, 'interactive.action.buttons.type.enum', [
    [...BUTTONS, 0, 'type'],
    'url',
  ]),
  broken('button.reply: missing', buttonsBase, 'interactive.action.buttons.reply.required', [
    [...BUTTONS, 0, 'reply'],
    GONE,
  ]),
  broken('button: unknown key', buttonsBase, 'unknown_field', [[...BUTTONS, 0, 'url'], 'https://x.example']),
  broken('reply.id: missing', buttonsBase, 'interactive.action.buttons.reply.id.required', [
    [...BUTTONS, 0, 'reply', 'id'],
    GONE,
  ]),
  broken('reply.id: empty', buttonsBase, 'interactive.action.buttons.reply.id.required', [
    [...BUTTONS, 0, 'reply', 'id'],
    '',
  ]),
  broken('reply.id: 257 characters (R14)', buttonsBase, 'interactive.action.buttons.reply.id.max_length', [
    [...BUTTONS, 0, 'reply', 'id'],
    text(257),
  ]),
  broken('reply.title: empty', buttonsBase, 'interactive.action.buttons.reply.title.required', [
    [...BUTTONS, 0, 'reply', 'title'],
    '',
  ]),
  broken(
    'reply.title: 21 characters (R15)',
    buttonsBase,
    'interactive.action.buttons.reply.title.max_length',
    [[...BUTTONS, 0, 'reply', 'title'], text(21)],
  ),
  broken('reply: unknown key', buttonsBase, 'unknown_field', [[...BUTTONS, 0, 'reply', 'payload'], 'x']),
  // interactive: list
  broken('list.action.button: empty', listBase, 'interactive.action.button.required', [
    [...I, 'action', 'button'],
    '',
  ]),
  broken('list.action.button: 21 characters', listBase, 'interactive.action.button.max_length', [
    [...I, 'action', 'button'],
    text(21),
  ]),
  broken('list.action.button: missing', listBase, 'interactive.action.button.required', [
    [...I, 'action', 'button'],
    GONE,
  ]),
  broken('list.action: buttons (unknown key)', listBase, 'unknown_field', [[...I, 'action', 'buttons'], []]),
  broken('sections: none', listBase, 'interactive.action.sections.min_items', [SECTIONS, []]),
  broken('sections: missing', listBase, 'interactive.action.sections.required', [SECTIONS, GONE]),
  broken('section.title: missing', listBase, 'interactive.action.sections.title.required', [
    [...SECTIONS, 0, 'title'],
    GONE,
  ]),
  broken('section.title: a number', listBase, 'interactive.action.sections.title.type', [
    [...SECTIONS, 0, 'title'],
    1,
  ]),
  broken('section: unknown key', listBase, 'unknown_field', [[...SECTIONS, 0, 'id'], 's1']),
  broken('rows: none', listBase, 'interactive.action.sections.rows.min_items', [
    [...SECTIONS, 1, 'rows'],
    [],
  ]),
  broken('rows: missing', listBase, 'interactive.action.sections.rows.required', [
    [...SECTIONS, 1, 'rows'],
    GONE,
  ]),
  broken('row.id: missing', listBase, 'interactive.action.sections.rows.id.required', [[...ROW, 'id'], GONE]),
  broken('row.id: empty', listBase, 'interactive.action.sections.rows.id.required', [[...ROW, 'id'], '']),
  broken('row.id: 201 characters (R18)', listBase, 'interactive.action.sections.rows.id.max_length', [
    [...ROW, 'id'],
    text(201),
  ]),
  broken('row.title: empty', listBase, 'interactive.action.sections.rows.title.required', [
    [...ROW, 'title'],
    '',
  ]),
  broken('row.title: 25 characters (R19)', listBase, 'interactive.action.sections.rows.title.max_length', [
    [...ROW, 'title'],
    text(25),
  ]),
  broken('row.description: a number', listBase, 'interactive.action.sections.rows.description.type', [
    [...ROW, 'description'],
    1,
  ]),
  broken('row.description: null', listBase, 'interactive.action.sections.rows.description.type', [
    [...ROW, 'description'],
    null,
  ]),
  broken('row: unknown key', listBase, 'unknown_field', [[...ROW, 'payload'], 'x']),
];

/** Messages just inside a limit, or using a leniency: valid to both, with the schema's output. */
const INSIDE: readonly [string, unknown][] = [
  ...Object.entries(MESSAGE_BASES),
  ['to: 15 digits', edited(textBase, [['to'], '9'.repeat(15)])],
  ['to: 7 digits (Saint Helena)', edited(textBase, [['to'], '2904567'])],
  ['text.body: 4096 characters', edited(textBase, [['text', 'body'], text(4096)])],
  ['text.body: 1 character', edited(textBase, [['text', 'body'], 'x'])],
  ['text.preview_url: absent', edited(textBase, [['text', 'preview_url'], GONE])],
  ['text.preview_url: false', edited(textBase, [['text', 'preview_url'], false])],
  ['image.caption: absent', edited(imageBase, [['image', 'caption'], GONE])],
  ['image.caption: empty', edited(imageBase, [['image', 'caption'], ''])],
  ['image.link: http', edited(imageBase, [['image', 'link'], 'http://cdn.example.com/a.jpg'])],
  [
    'document: link only',
    edited(documentBase, [['document', 'caption'], GONE], [['document', 'filename'], GONE]),
  ],
  ['template: no components', edited(templateBase, [C, GONE])],
  ['template: components empty', edited(templateBase, [C, []])],
  ['template.name: 1 character', edited(templateBase, [[...T, 'name'], 'x'])],
  ['component.parameters: empty', edited(templateBase, [[...BODY, 'parameters'], []])],
  ['button: index 2 (a number, sent as a string)', edited(templateBase, [[...URL_BUTTON, 'index'], 2])],
  ["button: index '2'", edited(templateBase, [[...URL_BUTTON, 'index'], '2'])],
  ['parameter currency: empty object', edited(templateBase, [[...P(1), 'currency'], {}])],
  [
    'parameter video: any fields (open)',
    edited(templateBase, [[...P(4), 'video'], { id: 1, extra: [true] }]),
  ],
  ['parameter text: empty', edited(templateBase, [[...P(0), 'text'], ''])],
  ["parameter text: carries another type's value too", edited(templateBase, [[...P(0), 'currency'], {}])],
  ['buttons: 1', edited(buttonsBase, [BUTTONS, [reply('only')]])],
  ['buttons: 3 (the most)', buttonsBase],
  ['reply.id: 256 characters', edited(buttonsBase, [[...BUTTONS, 0, 'reply', 'id'], text(256)])],
  ['reply.title: 20 characters', edited(buttonsBase, [[...BUTTONS, 0, 'reply', 'title'], text(20)])],
  ['reply.id: the same as another title', edited(buttonsBase, [[...BUTTONS, 1, 'reply', 'id'], 'Yes'])],
  ['list.action.button: 20 characters', edited(listBase, [[...I, 'action', 'button'], text(20)])],
  ['section.title: empty', edited(listBase, [[...SECTIONS, 0, 'title'], ''])],
  ['sections: 1', edited(listBase, [SECTIONS, [{ title: 'S', rows: [row('r')] }]])],
  ['row.id: 200 characters', edited(listBase, [[...ROW, 'id'], text(200)])],
  ['row.title: 24 characters', edited(listBase, [[...ROW, 'title'], text(24)])],
  ['row.description: absent', edited(listBase, [[...ROW, 'description'], GONE])],
  ['rows: repeated ids (no rule)', edited(listBase, [[...SECTIONS, 1, 'rows', 0, 'id'], 'tea'])],
];

/** The generated checker's own verdict, with no schema involved: the number of issues it raised. */
function generatedIssues(message: unknown): number {
  const issues: RawIssue[] = [];
  checkOutboundMessage(message, issues);
  return issues.length;
}

const schemaCheck = (message: unknown) =>
  safeCheck(outboundMessageSchema, message, { what: 'message', mapIssues: toMessageIssues });

describe('every rule of the generated send checker, broken alone', () => {
  it('breaks each rule in a message of its own (names unique)', () => {
    expect(new Set(BROKEN.map((b) => b.name)).size).toBe(BROKEN.length);
  });

  it.each(BROKEN.map((b) => [b.name, b] as const))('%s', (_, { message, rule, at }) => {
    const schema = schemaCheck(message);
    expect(schema.ok).toBe(false);
    const issues = schema.ok ? [] : schema.issues;
    expect(issues.map((i) => [i.rule, i.path])).toEqual([[rule, at]]);
    expect(generatedIssues(message)).toBeGreaterThan(0);
    expect(validateMessage(message)).toEqual({ valid: false, issues });
  });
});

describe('just inside every limit', () => {
  it.each(INSIDE)('%s', (_, message) => {
    const schema = schemaCheck(message);
    expect(schema).toMatchObject({ ok: true });
    expect(generatedIssues(message)).toBe(0);
    expect(validateMessage(message)).toEqual({ valid: true, message: schema.ok && schema.data, issues: [] });
  });
});
