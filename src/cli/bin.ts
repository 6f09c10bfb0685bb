import { EXIT, type Interruption } from './io.js';
import { runCli, servesWithoutOutput } from './main.js';

const argv = process.argv.slice(2);

// The first Ctrl-C (or SIGTERM) asks the command to stop (`io.interrupted`); a second one ends the process at
// once, in case stopping takes longer than the user will wait.
let signalled: Interruption | undefined;
const interrupted = new Promise<Interruption>((resolve) => {
  const on = (signal: Interruption) => {
    if (signalled) process.exit(EXIT[signal]);
    signalled = signal;
    resolve(signal);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
});

// A reader that left (`wa-gateway campaign report x --csv refused | head -1`) is not a failure: the command ends
// quietly, or, for the sandbox, keeps serving and stops writing. Any other write error is thrown as before.
const closed = { stdout: false, stderr: false };
for (const name of ['stdout', 'stderr'] as const) {
  process[name].on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed[name] = true;
    if (!servesWithoutOutput(argv)) process.exit(process.exitCode ?? EXIT.ok);
  });
}

const code = await runCli(argv, {
  stdout: (text) => void (closed.stdout || process.stdout.write(text)),
  stderr: (text) => void (closed.stderr || process.stderr.write(text)),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
  interrupted,
});
// A command stopped by a signal may leave work behind it (a request it no longer waits for): end now.
if (signalled) process.exit(code);
process.exitCode = code;
// Ctrl-C after the command finished should end the process, not be swallowed by our listeners.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
