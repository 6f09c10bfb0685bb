/**
 * What the sandbox makes of a customer's message given to it (`POST /__sandbox/inject`, `sandbox.injectMessage`,
 * `wa-gateway say`): a delivery the gateway could make. What a newcomer leaves out and the sandbox can know is
 * filled in (a fresh `id`, the time: now); what no delivery could carry is refused, every problem named, rather than
 * delivered to arrive as an `unknown` message.
 */

import { WebhookParseError } from '../../core/errors.js';
import { isRecord } from '../../core/plain-data.js';
import { parseWebhook } from '../../webhooks/parse.js';
import type { WebhookEnvelope } from '../../webhooks/schemas.js';
import { fixtureId, fixtureTimestamp, messageEnvelope } from '../webhook-fixtures.js';

/** A delivery ready to go, with the messages it carries; or why it cannot be one. */
export type Injection =
  | { ok: true; envelope: WebhookEnvelope; messages: Record<string, unknown>[] }
  | { ok: false; problems: string[] };

/** As the gateway writes a sender: the number with its country code, digits only. */
export const SENDER_PATTERN = /^\d{5,20}$/;

/**
 * An incoming message object (or a whole envelope, whose messages are filled in the same way) as a delivery; a bare
 * message's envelope carries `metadata` (the sandbox's business number), else the fixtures'. The input is not
 * changed: the envelope is a copy, as JSON would carry it.
 *
 * @example
 * const injection = prepareInjection({ from: '998901234567', type: 'text', text: { body: 'hi' } });
 * if (injection.ok) await runtime.deliver(injection.envelope);
 */
export function prepareInjection(
  input: unknown,
  metadata?: { phone_number_id: string; display_phone_number: string },
): Injection {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(input ?? null)) as unknown;
  } catch {
    return { ok: false, problems: ['the message cannot be written as JSON'] };
  }
  if (!isRecord(copy)) {
    return {
      ok: false,
      problems: ['send an incoming message object ({ from, type, ... }) or a whole webhook envelope'],
    };
  }
  const whole = 'entry' in copy || 'object' in copy;
  // A bare message arrives at the business number (`metadata`, as status events carry it); an envelope keeps its own.
  const envelope = whole
    ? (copy as unknown as WebhookEnvelope)
    : messageEnvelope(copy, metadata ? { metadata } : {});
  const messages = messagesOf(envelope);
  for (const m of messages) {
    m['id'] ??= fixtureId('wamid.SBXIN');
    m['timestamp'] ??= fixtureTimestamp();
  }
  const problems = deliveryProblems(envelope, whole);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, envelope, messages };
}

/** The message objects of an envelope, wherever its skeleton holds them (the parse reports a broken one). */
function messagesOf(envelope: WebhookEnvelope): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const e of Array.isArray(envelope.entry) ? envelope.entry : [])
    for (const c of isRecord(e) && Array.isArray(e['changes']) ? e['changes'] : []) {
      const value = isRecord(c) ? c['value'] : undefined;
      const messages = isRecord(value) ? value['messages'] : undefined;
      if (Array.isArray(messages)) out.push(...messages.filter(isRecord));
    }
  return out;
}

/** What keeps `envelope` from being a delivery the SDK reads as its senders' messages; empty when nothing does. */
function deliveryProblems(envelope: WebhookEnvelope, whole: boolean): string[] {
  let events: ReturnType<typeof parseWebhook>;
  try {
    events = parseWebhook(envelope);
  } catch (error) {
    return [error instanceof WebhookParseError ? error.message : 'the envelope cannot be read'];
  }
  // A bare message's problems are named from the message; an envelope's say which item they are in.
  const problems: string[] = [];
  const add = (path: readonly (string | number)[], text: string, where: string) =>
    problems.push(`${path.join('.') || '(the message)'}: ${text}${whole ? ` (${where})` : ''}`);
  for (const event of events) {
    if (event.kind === 'unknown') {
      // A change field the SDK does not know is a delivery a newer upstream makes; an item that fits nothing is not.
      if (event.reason === 'unknown_field') continue;
      const where = `at ${event.path.join('.')}`;
      for (const issue of event.issues) add(issue.path, issue.message, where);
      if (event.issues.length === 0) add([], 'neither a message nor a status', where);
      continue;
    }
    if (event.kind !== 'message') continue;
    const message = event.message;
    const where = `in message ${message.id}`;
    if (message.type === 'unknown') for (const issue of message.issues) add(issue.path, issue.message, where);
    const { from, from_user_id } = message as { from?: unknown; from_user_id?: unknown };
    // Not `customerOf`: it falls back to the contact, and a message without its own sender is not a delivery.
    if (from === undefined && from_user_id === undefined)
      add(['from'], "the customer's number is required (digits, with the country code)", where);
    else if (typeof from === 'string' && !SENDER_PATTERN.test(from))
      add(['from'], 'a number as the gateway writes it: digits with the country code (998901234567)', where);
  }
  return problems;
}
