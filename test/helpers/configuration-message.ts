import { expect } from 'vitest';
import { ConfigurationError } from '../../src/index.js';

/** The message of the `ConfigurationError` that `create` throws; fails the test when it throws none. */
export function configurationMessage(create: () => unknown): string {
  try {
    create();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('no ConfigurationError');
}
