import type { CliIo, Interruption } from '../../src/cli/io.js';

/**
 * A `CliIo` for running a command in-process: its output kept in `out`, `stop(signal)` interrupts it as the bin's
 * Ctrl-C and SIGTERM listeners do (default `SIGINT`).
 */
export function cliIo(env: Record<string, string> = {}): {
  out: { stdout: string; stderr: string };
  stop: (signal?: Interruption) => void;
  io: CliIo;
} {
  const out = { stdout: '', stderr: '' };
  let stop!: (signal: Interruption) => void;
  const interrupted = new Promise<Interruption>((resolve) => {
    stop = resolve;
  });
  return {
    out,
    stop: (signal = 'SIGINT') => stop(signal),
    io: {
      stdout: (t) => {
        out.stdout += t;
      },
      stderr: (t) => {
        out.stderr += t;
      },
      env,
      interrupted,
    },
  };
}
