import { raceSignal } from '../core/abort.js';
import { SDK_VERSION } from '../core/version.js';
import * as campaign from './campaign.js';
import { type CliIo, EXIT, Interrupted, interruption, UsageError } from './io.js';
import { printable } from './printable.js';
import * as sandbox from './sandbox.js';
import * as say from './say.js';
import * as stream from './stream.js';
import * as templates from './templates.js';
import * as trigger from './trigger.js';
import * as validateTemplate from './validate-template.js';

interface Command {
  usage: string;
  /** The flags, as `util.parseArgs` takes them: a mistyped one is matched against these. */
  options: Readonly<Record<string, unknown>>;
  run: (args: string[], io: CliIo) => Promise<number>;
  summary: string;
  /**
   * The command answers Ctrl-C itself, with its own outcome (the sandbox stops and prints its summary, exit 0;
   * `stream` keeps its records and prints the resume command, exit 1). Any other command is stopped at once.
   */
  ownsInterruption?: true;
  /**
   * The command keeps running when its stdout is gone (`wa-gateway sandbox | grep -m1 listening`): a server
   * whose log nobody reads still serves. Any other command ends quietly (exit 0), as `head` expects.
   */
  servesWithoutOutput?: true;
}

/** The commands, as data: the help text is made from the same table the dispatcher reads. */
const COMMANDS: Readonly<Record<string, Command>> = {
  'validate-template': {
    usage: validateTemplate.usage,
    options: validateTemplate.options,
    run: validateTemplate.validateTemplateCommand,
    summary: 'check a template JSON file against every rule, locally',
  },
  trigger: {
    usage: trigger.usage,
    options: trigger.options,
    run: trigger.triggerCommand,
    summary: 'post a fixture webhook event as the gateway would',
  },
  sandbox: {
    usage: sandbox.usage,
    options: sandbox.options,
    run: sandbox.sandboxCommand,
    summary: 'run a local gateway that delivers webhooks',
    ownsInterruption: true,
    servesWithoutOutput: true,
  },
  say: {
    usage: say.usage,
    options: say.options,
    run: say.sayCommand,
    summary: 'write to your bot as a customer, through a running sandbox, and print its replies',
  },
  stream: {
    usage: stream.usage,
    options: stream.options,
    run: stream.streamCommand,
    summary: 'export platform messages of a date range to NDJSON',
    ownsInterruption: true,
  },
  campaign: {
    usage: campaign.usage,
    options: campaign.options,
    run: campaign.campaignCommand,
    summary: "print a campaign's report (funnel, failures, retries) from Redis",
  },
  templates: {
    usage: templates.usage,
    options: templates.options,
    run: templates.templatesCommand,
    summary: 'check, push or type template definitions (JSON files or modules)',
  },
};

function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `wa-gateway ${SDK_VERSION}: tools for building on the messaging gateway

Usage: wa-gateway <command> [options]

${lines.join('\n')}

Run 'wa-gateway <command> --help' for a command's options.
Exit codes: 0 success, 1 the command ran and found a failure (invalid template, event not delivered), 2 usage error,
130 stopped by Ctrl-C (SIGINT), 143 stopped by SIGTERM.`;
}

/**
 * Whether the process should keep running when its stdout or stderr is closed (a pipe's reader left): only for a
 * command that serves (see `servesWithoutOutput`).
 */
export function servesWithoutOutput(argv: readonly string[]): boolean {
  const command = argv[0] === undefined ? undefined : COMMANDS[argv[0]];
  return command?.servesWithoutOutput === true && !argv.includes('--help') && !argv.includes('-h');
}

/**
 * Runs the CLI with `argv` (without node and the script) and returns the exit code. Never throws.
 *
 * @example
 * const code = await runCli(['validate-template', 'template.json', '--json'], io);
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' && args[0] !== undefined) {
    // `wa-gateway help trigger` is `wa-gateway trigger --help`.
    return runCli([args[0], '--help'], io);
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${mainUsage()}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${SDK_VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    // `--verison`, `-V`: an option of its own, suggested among the options, not the commands.
    const option = name.startsWith('-');
    const hint = closest(name, option ? ['--help', '--version', '-h', '-v'] : Object.keys(COMMANDS));
    io.stderr(
      `wa-gateway: unknown ${option ? 'option' : 'command'} '${printable(name)}'${hint ? ` (did you mean '${hint}'?)` : ''}.\n\n${mainUsage()}\n`,
    );
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    // A command that does not answer Ctrl-C itself is stopped at once; its own signal (interruption(io)) ends
    // the work it had in flight.
    return command.ownsInterruption
      ? await command.run(args, io)
      : await raceSignal(command.run(args, io), interruption(io));
  } catch (error) {
    if (error instanceof Interrupted) {
      io.stderr(`wa-gateway ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof UsageError || isParseArgsError(error)) {
      const message = error instanceof UsageError ? error.message : parseArgsMessage(error as Error, command);
      io.stderr(`wa-gateway ${name}: ${message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    // A failure's message may quote a server or Redis: its control characters are escaped, its lines kept.
    const message = printable(error instanceof Error ? error.message : String(error), '\n');
    // One that names the command already (a missing peer: "wa-gateway campaign needs ...") is not prefixed again.
    const prefix = `wa-gateway ${name}`;
    io.stderr(`${message.startsWith(`${prefix} `) ? '' : `${prefix}: `}${message}\n`);
    return EXIT.failed;
  }
}

/** `util.parseArgs` names the flag at fault (`Unknown option '--prot'`); its errors carry an ERR_PARSE_ARGS code. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/**
 * `util.parseArgs` explains an unknown option with advice about `--` and quotes that reads as garbled here;
 * say which flag is unknown and, when one is close, which was meant. A value that starts with `-` (`--prefix -wa`)
 * parseArgs calls ambiguous: it takes it only as `--prefix=-wa`, which the message shows without the value.
 */
function parseArgsMessage(error: Error, command: Command): string {
  const code = (error as { code?: string }).code;
  const flag = /option '(-{1,2}[^' ]*)/i.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const known = Object.keys(command.options).map((o) => `--${o}`);
    const hint = closest(flag.split('=')[0]!, [...known, '--help']);
    return `unknown flag '${flag}'${hint ? ` (did you mean '${hint}'?)` : ''}. Flags: ${known.join(', ')}.`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    // The value is not repeated: it may be a secret (`--api-key -pk_…`, `--secret -…`).
    if (/argument is ambiguous/.test(error.message))
      return `${flag} needs a value, and the one given starts with '-': write it as ${flag}=<value>.`;
    if (/argument missing/.test(error.message)) return `${flag} needs a value.`;
    if (/does not take an argument/.test(error.message)) return `${flag} takes no value.`;
  }
  return error.message;
}

/** The candidate nearest to `input` (edit distance at most a third of its length, at least 1), if any. */
function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(input.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, with adjacent transpositions counted as one edit (`--jsno` → `--json`). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
