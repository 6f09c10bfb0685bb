/**
 * The in-memory stores at their bound: once a store holds `maxKeys`, every write drops the oldest entry. That must
 * cost about what a write below the bound costs. Dropping the oldest through a fresh Map iterator per write made each
 * write skip every slot deleted at the front since V8 last compacted the Map: 17, then 52, then 109 µs a claim in a
 * 100,000-key `MemoryIdempotencyStore`, climbing (docs/benchmarks.md). Both sides write fresh keys in a store of
 * 100,000 keys; only the subject's bound is 100,000. The same for the router's `MemorySessionStore`.
 */
import { MemorySessionStore } from '../src/conversations/index.js';
import { MemoryIdempotencyStore } from '../src/webhooks/index.js';
import { compare, QUICK, report, round } from './lib.js';

const KEYS = 100_000;
// Enough writes a round that each spans V8's compactions of the Map alike (a short round that holds one reads as
// a slow round); the quick pass runs fewer rounds, not shorter ones.
const iterations = 20_000;
const rounds = QUICK ? 5 : 9;
/**
 * The bar: a write at the bound may cost a few times one below it (the drop, the Map's compactions), never the
 * 8 to 16 times and climbing of a new iterator per write.
 */
const BAR = 3;

function filled(maxKeys: number): MemoryIdempotencyStore {
  const store = new MemoryIdempotencyStore({ maxKeys });
  for (let i = 0; i < KEYS; i++) store.claim(`fill-${i}`);
  return store;
}

// The baseline's bound is far above what the run writes: it never drops an entry.
const atBound = filled(KEYS);
const belowBound = filled(KEYS + (iterations + 1) * (rounds + 1) * 2);
let a = 0;
let b = 0;
const { ratio, subjectMs, baselineMs } = await compare(
  () => atBound.claim(`a-${a++}`),
  () => belowBound.claim(`b-${b++}`),
  { iterations, rounds },
);
if (atBound.size !== KEYS) throw new Error(`the bounded store holds ${atBound.size} keys, not ${KEYS}`);

report({
  bench: 'memory-stores',
  metric: `MemoryIdempotencyStore.claim at its bound (each claim drops the oldest) vs below it, ${KEYS.toLocaleString('en')} keys (time ratio)`,
  value: ratio,
  unit: 'x',
  bar: `<= ${BAR}x`,
  pass: ratio <= BAR,
  limit: BAR,
  detail: { atBoundUs: round(subjectMs * 1000, 2), belowBoundUs: round(baselineMs * 1000, 2) },
});

// The router's session store: the same bound, its own eviction (it steps over records whose lock is held).
const DAY = 86_400_000;
async function sessions(maxKeys: number): Promise<MemorySessionStore> {
  const store = new MemorySessionStore({ maxKeys });
  for (let i = 0; i < KEYS; i++) await store.set(`fill-${i}`, { i }, 30 * DAY);
  return store;
}
const sessionsAtBound = await sessions(KEYS);
const sessionsBelow = await sessions(KEYS + (iterations + 1) * (rounds + 1) * 2);
const s = await compare(
  () => sessionsAtBound.set(`a-${a++}`, { a }, 30 * DAY),
  () => sessionsBelow.set(`b-${b++}`, { b }, 30 * DAY),
  { iterations, rounds },
);
if (sessionsAtBound.size !== KEYS)
  throw new Error(`the bounded session store holds ${sessionsAtBound.size} records`);

report({
  bench: 'memory-stores',
  metric: `MemorySessionStore.set at its bound (each write drops the oldest) vs below it, ${KEYS.toLocaleString('en')} records (time ratio)`,
  value: s.ratio,
  unit: 'x',
  bar: `<= ${BAR}x`,
  pass: s.ratio <= BAR,
  limit: BAR,
  detail: { atBoundUs: round(s.subjectMs * 1000, 2), belowBoundUs: round(s.baselineMs * 1000, 2) },
});
