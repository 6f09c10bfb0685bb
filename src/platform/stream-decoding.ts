import { createParser } from 'eventsource-parser';
import { passed } from '../core/checker-runtime.js';
import { hot } from '../core/compiled.js';
import { ConnectionError, StreamError, TimeoutError } from '../core/errors.js';
import { checkStreamMessage, checkStreamRecordKey } from './checkers.generated.js';
import { StreamInterruptedError } from './errors.js';
import { type StreamMessage, streamMessageSchema } from './stream.schema.js';

/** A record longer than this without a line break ends the stream with a `StreamError` (bounded memory). */
export const STREAM_MAX_RECORD_CHARS = 4 * 1024 * 1024;

/** What the caller has received: an error reports it, and a resume starts from it. */
export interface Progress {
  recordsDelivered: number;
  lastCreatedAt: string | undefined;
}

export interface DecodeState {
  /** Records yielded by this request. */
  delivered: number;
  /** The record this request yielded last. */
  last: StreamMessage | undefined;
  /** Lines (NDJSON) or events (SSE) read so far. */
  unit: number;
  /** The caller's: a chunk holds many records, and an abort must stop between them. */
  signal: AbortSignal | undefined;
  accept: (record: unknown, state: DecodeState, what: string) => StreamMessage;
  /** What the caller received: this request's records, or for `streamRange` its total across requests. */
  progress: () => Progress;
}

/**
 * A line-at-a-time NDJSON splitter over the body's reader, driven by `requestRecords`' own generator.
 * Hand-written rather than `Readable.fromWeb(body).pipe(ndjson.parse())` because it must yield every record
 * received before a fault (readable-stream's iterator drops records buffered ahead of an error, and `pipe()`
 * does not forward a cut body's error, so the stream hangs), number the lines of its errors without quoting
 * them (ndjson's error quotes the row and it skips blank lines), and read the socket only as records are
 * pulled. Synchronous per line rather than a generator of its own: a generator delegated to with `yield*`
 * costs a promise and a turn per record, which was the largest part of the SDK's cost over a bare
 * split-and-parse loop (bench/stream.bench.ts).
 */
export class NdjsonLines {
  readonly #decoder = new TextDecoder();
  /** The chunk being split, and where its next line starts. */
  #text = '';
  #start = 0;
  /** The start of a line that the chunks before `#text` left unfinished. */
  #carry = '';
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly state: DecodeState;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, state: DecodeState) {
    this.reader = reader;
    this.state = state;
  }

  /** The next complete line of what has been read (counted in `state.unit`), or `undefined`: `fill()` first. */
  take(): string | undefined {
    const nl = this.#text.indexOf('\n', this.#start);
    if (nl === -1) return undefined;
    let line = this.#text.slice(this.#start, nl);
    if (this.#carry !== '') {
      line = this.#carry + line;
      this.#carry = '';
    }
    this.#start = nl + 1;
    this.state.unit++;
    return line;
  }

  /** Reads the next chunk, once `take()` has none left; `false` at the end of the body. */
  async fill(): Promise<boolean> {
    if (this.#start < this.#text.length) this.#carry += this.#text.slice(this.#start);
    this.#text = '';
    this.#start = 0;
    if (this.#carry.length > STREAM_MAX_RECORD_CHARS) throw tooLong(this.state, 'line');
    const chunk = await read(this.reader, this.state, this.#carry !== '');
    if (chunk.done) return false;
    this.#text = this.#decoder.decode(chunk.value, { stream: true });
    return true;
  }

  /**
   * After `fill()` returned `false`: a last line without a line break is a record if it is complete JSON
   * (returned checked), else the stream was cut (`StreamInterruptedError`).
   */
  last(): StreamMessage | undefined {
    const { state } = this;
    const carry = this.#carry + this.#decoder.decode();
    if (carry.trim() === '') return undefined;
    state.unit++;
    let value: unknown;
    try {
      value = JSON.parse(carry);
    } catch {
      throw new StreamInterruptedError(
        `The message stream ended in the middle of line ${state.unit}, after ${state.delivered} complete records.`,
        state.progress(),
      );
    }
    return state.accept(value, state, 'line');
  }
}

export function parseLine(line: string, state: DecodeState): StreamMessage | undefined {
  if (line.length === 0) return undefined;
  if (line.length > STREAM_MAX_RECORD_CHARS) {
    state.unit--;
    throw tooLong(state, 'line');
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    if (line.trim() === '') return undefined;
    // Never the line itself, nor JSON.parse's message (it quotes the input): a record holds customer data.
    throw new StreamError(`Line ${state.unit} of the message stream is not valid JSON.`, {
      recordsDelivered: state.progress().recordsDelivered,
    });
  }
  return state.accept(value, state, 'line');
}

/** What follows the last blank line (an SSE event boundary), bounded like a record. */
function lastEventTail(text: string): string {
  const boundary = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'), text.lastIndexOf('\r\r'));
  const tail = boundary === -1 ? text : text.slice(boundary + 2);
  return tail.length > STREAM_MAX_RECORD_CHARS ? tail.slice(-STREAM_MAX_RECORD_CHARS) : tail;
}

/** `text/event-stream`: each event's data is one JSON record. */
export async function* sseRecords(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: DecodeState,
): AsyncGenerator<StreamMessage, void, undefined> {
  const decoder = new TextDecoder();
  const pending: string[] = [];
  let overflow = false;
  const parser = createParser({
    onEvent: (event) => {
      pending.push(event.data);
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
    maxBufferSize: STREAM_MAX_RECORD_CHARS,
  });
  // The text after the last event boundary: an event is dispatched only at a blank line, so a stream that ends
  // with data after the last one was cut in the middle of an event (the parser would silently drop it).
  let tail = '';
  for (;;) {
    const chunk = await read(reader, state, false);
    if (chunk.done) {
      if (/^data:/m.test(tail + decoder.decode())) {
        throw new StreamInterruptedError(
          `The message stream ended in the middle of event ${state.unit + 1}, after ${state.delivered} complete records.`,
          state.progress(),
        );
      }
      break;
    }
    const text = decoder.decode(chunk.value, { stream: true });
    tail = lastEventTail(tail + text);
    parser.feed(text);
    for (let i = 0; i < pending.length; i++) {
      const data = pending[i]!;
      state.unit++;
      // Keep-alive events carry no data.
      if (data.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        throw new StreamError(`Event ${state.unit} of the message stream is not valid JSON.`, {
          recordsDelivered: state.progress().recordsDelivered,
        });
      }
      const record = state.accept(value, state, 'event');
      state.delivered++;
      state.last = record;
      yield record;
      if (state.signal?.aborted) throw state.signal.reason;
    }
    pending.length = 0;
    if (overflow) throw tooLong(state, 'event');
  }
}

/**
 * The next chunk. The transport has already turned a cut or a stall into `ConnectionError` or
 * `TimeoutError`; here it becomes a `StreamInterruptedError` that says how far the caller got.
 */
async function read(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: DecodeState,
  midRecord: boolean,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  // Not every fetch errors its body when the signal aborts (a test double, a polyfill).
  if (state.signal?.aborted) throw state.signal.reason;
  try {
    return await reader.read();
  } catch (error) {
    if (state.signal?.aborted) throw state.signal.reason;
    const after = `after ${state.delivered} complete records${midRecord ? ' (in the middle of the next record)' : ''}`;
    let what: string;
    if (error instanceof TimeoutError) {
      what = `stalled ${after}: no data for ${error.timeoutMs} ms`;
    } else {
      const code = error instanceof ConnectionError ? error.errno : codeOf(error);
      what = `was cut ${after}${code ? ` (${code})` : ''}`;
    }
    throw new StreamInterruptedError(`The message stream ${what}.`, { ...state.progress(), cause: error });
  }
}

function codeOf(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  return codeOf(e.cause, depth + 1);
}

function tooLong(state: DecodeState, what: 'line' | 'event'): StreamError {
  return new StreamError(
    `The message stream's ${what} ${state.unit + 1} exceeds ${STREAM_MAX_RECORD_CHARS} characters without ending.`,
    { recordsDelivered: state.progress().recordsDelivered },
  );
}

/**
 * The cheap check (`streamRecordKeySchema`, through the checker generated from it), at a cost that keeps the stream
 * near the speed of a bare `JSON.parse` (docs/benchmarks.md); the rest of the record is passed as the server sent it.
 */
export function lightCheck(value: unknown, state: DecodeState, what: string): StreamMessage {
  if (passed(checkStreamRecordKey, value) !== undefined) return value as StreamMessage;
  throw new StreamError(
    `${capital(what)} ${state.unit} of the message stream is not a message record (it needs an integer id and a created_at).`,
    { recordsDelivered: state.progress().recordsDelivered },
  );
}

export function fullCheck(value: unknown, state: DecodeState, what: string): StreamMessage {
  // The checker generated from the schema shapes a valid record; a refused one is the schema's to explain.
  const checked = passed(checkStreamMessage, value);
  if (checked !== undefined) return checked;
  const result = hot(streamMessageSchema).safeParse(value);
  if (result.success) return result.data;
  const where = result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
    .join('; ');
  throw new StreamError(
    `${capital(what)} ${state.unit} of the message stream is not a valid message record (${where}).`,
    { recordsDelivered: state.progress().recordsDelivered },
  );
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
