/** `pipelineAnswers`: a pipeline's or transaction's answers in order, or the typed error a store throws. */
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisStoreError } from '../../src/redis/errors.js';
import { pipelineAnswers } from '../../src/redis/replies.js';

describe('pipelineAnswers', () => {
  it('answers the values in order', () => {
    expect(
      pipelineAnswers(
        'Op.read',
        [
          [null, 1],
          [null, ['a', 'b']],
        ],
        2,
      ),
    ).toEqual([1, ['a', 'b']]);
  });

  it("throws a command's error as a RedisStoreError naming the operation", () => {
    const error = new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value');
    let thrown: unknown;
    try {
      pipelineAnswers(
        'Op.read',
        [
          [null, 1],
          [error, null],
        ],
        2,
      );
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RedisStoreError);
    expect(thrown).toMatchObject({ operation: 'Op.read' });
  });

  it.each([
    ['no answer at all (the connection closed)', null],
    ['fewer answers than commands', [[null, 1]] as [Error | null, unknown][]],
  ])('refuses %s as an unexpected reply', (_, replies) => {
    expect(() => pipelineAnswers('Op.read', replies, 2)).toThrow(
      expect.objectContaining({ failure: 'unexpected_reply', operation: 'Op.read' }),
    );
  });
});
