import { runCli } from './main.js';

const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
  interrupted,
});
// Ctrl-C after the command finished should end the process, not be swallowed by our listeners.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
