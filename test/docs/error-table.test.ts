/**
 * docs/errors-and-retries.md's tables are where a user looks up an error: every error class any entry exports has
 * its row, and no row names a class that does not exist; every gateway code's retry and "was it sent?" answer is
 * the SDK's own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as conversations from '../../src/conversations/index.js';
import { mayHaveBeenSent, retryDelay } from '../../src/core/retry-policy.js';
import * as durableObjects from '../../src/durable-objects/index.js';
import { GATEWAY_RETRY_RULES } from '../../src/gateway/retry-rules.js';
import * as main from '../../src/index.js';
import * as redis from '../../src/redis/index.js';
import * as templates from '../../src/templates/index.js';
import * as webhooks from '../../src/webhooks/index.js';

const { WaGatewayError } = main;

function errorClasses(entry: Record<string, unknown>): string[] {
  return Object.entries(entry)
    .filter(
      ([, value]) =>
        typeof value === 'function' &&
        (value === WaGatewayError || value.prototype instanceof WaGatewayError),
    )
    .map(([name]) => name);
}

describe('docs/errors-and-retries.md', () => {
  const table = readFileSync(new URL('../../docs/errors-and-retries.md', import.meta.url), 'utf8');
  const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  const exported = new Set(
    [main, webhooks, redis, conversations, templates, durableObjects].flatMap((entry) => errorClasses(entry)),
  );

  it('has a row for every exported error class', () => {
    expect(exported.size).toBeGreaterThan(25);
    const missing = [...exported].filter((name) => name !== 'WaGatewayError' && !rows.includes(name));
    expect(missing).toEqual([]);
  });

  it('names no class that is not exported', () => {
    expect(rows.filter((name) => !exported.has(name!))).toEqual([]);
  });
});

/**
 * Its "What is retried" table says, per gateway code, whether a send is retried and whether it may have gone out:
 * both are read from the table the SDK runs on (`GATEWAY_RETRY_RULES`), so the page and the code cannot part.
 */
describe('docs/errors-and-retries.md: what is retried', () => {
  const page = readFileSync(new URL('../../docs/errors-and-retries.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('## What is retried'), page.indexOf('**"May have been sent"'));
  const rows = section
    .split('\n')
    .filter((line) => /^\| \d{3} /.test(line))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '')));
  const send = { attempt: 0, maxRetries: 2, maxRetryWaitMs: 60_000, idempotent: false, retryInFlight: false };
  const api = (status: number, code: string | null) =>
    new main.ApiError({ status, code, group: null, description: 'd', body: null });

  it('has a row for every code of the gateway’s retry table, and each agrees with it', () => {
    const documented = new Set<string>();
    for (const [answer = '', retried = '', sent = ''] of rows) {
      // "401 `AUTH_001`, `AUTH_002`; 400 `BILL_002`": each code with the status before it.
      for (const group of answer.split(';')) {
        const status = Number(/\d{3}/.exec(group)?.[0]);
        for (const [, code] of group.matchAll(/`([A-Z]+_\d{3})`/g)) {
          documented.add(code!);
          const error = api(status, code!);
          expect(retried.startsWith('yes'), `${code} retried?`).toBe(
            retryDelay(error, send, GATEWAY_RETRY_RULES) !== null,
          );
          expect(sent, `${code} sent?`).toBe(
            mayHaveBeenSent(error, GATEWAY_RETRY_RULES) ? '**maybe**' : 'no',
          );
        }
      }
    }
    const { retryableCodes, refusedCodes = [], neverRetryCodes } = GATEWAY_RETRY_RULES;
    expect([...new Set([...retryableCodes, ...refusedCodes, ...neverRetryCodes])].sort()).toEqual(
      [...documented].sort(),
    );
  });

  it('a 502 without the gateway’s envelope may have been sent', () => {
    const row = rows.find(([answer]) => answer?.startsWith('502 without'));
    expect(row?.[2]).toBe('**maybe**');
    expect(mayHaveBeenSent(api(502, null), GATEWAY_RETRY_RULES)).toBe(true);
    expect(retryDelay(api(502, null), send, GATEWAY_RETRY_RULES)).toBeNull();
  });
});
