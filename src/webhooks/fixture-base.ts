/** What every webhook fixture builder shares: unique ids and the fixed sender and time. For tests only. */

let sequence = 0;

/** A new, unique `wamid`-like identifier. */
export function fixtureId(prefix = 'wamid.FIXTURE'): string {
  sequence += 1;
  return `${prefix}${sequence.toString().padStart(6, '0')}`;
}

/** The sender number fixtures use unless told otherwise. */
export const FIXTURE_SENDER = '15550001111';
/** A fixed Unix time in seconds, as a string like the wire. */
export const FIXTURE_TIMESTAMP = '1700000000';

// `Omit` would flatten the loose objects' index signature away; `type` is written last instead.
export type Overrides<T> = Partial<T>;

export function base(overrides: { id?: string; from?: string; timestamp?: string | number } = {}) {
  return {
    from: overrides.from ?? FIXTURE_SENDER,
    id: overrides.id ?? fixtureId(),
    timestamp: overrides.timestamp ?? FIXTURE_TIMESTAMP,
  };
}
