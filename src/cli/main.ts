import { SDK_VERSION } from '../core/version.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import * as sandbox from './sandbox.js';
import * as stream from './stream.js';
import * as trigger from './trigger.js';
import * as validateTemplate from './validate-template.js';

interface Command {
  usage: string;
  run: (args: string[], io: CliIo) => Promise<number>;
  summary: string;
}

/** The commands, as data: the help text is made from the same table the dispatcher reads. */
const COMMANDS: Readonly<Record<string, Command>> = {
  'validate-template': {
    usage: validateTemplate.usage,
    run: validateTemplate.validateTemplateCommand,
    summary: 'check a template JSON file against every rule, locally',
  },
  trigger: {
    usage: trigger.usage,
    run: trigger.triggerCommand,
    summary: 'post a fixture webhook event as the gateway would',
  },
  sandbox: {
    usage: sandbox.usage,
    run: sandbox.sandboxCommand,
    summary: 'run a local gateway that delivers webhooks',
  },
  stream: {
    usage: stream.usage,
    run: stream.streamCommand,
    summary: 'export platform messages of a date range to NDJSON',
  },
};

function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `wa-gateway ${SDK_VERSION}: tools for building on the messaging gateway

Usage: wa-gateway <command> [options]

${lines.join('\n')}

Run 'wa-gateway <command> --help' for a command's options.
Exit codes: 0 success, 1 the command ran and found a failure (invalid template, event not delivered), 2 usage error.`;
}

/**
 * Runs the CLI with `argv` (without node and the script) and returns the exit code. Never throws.
 *
 * @example
 * const code = await runCli(['validate-template', 'template.json', '--json'], io);
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
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
    io.stderr(`wa-gateway: unknown command '${name}'.\n\n${mainUsage()}\n`);
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`wa-gateway ${name}: ${(error as Error).message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    io.stderr(`wa-gateway ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
}

/** `util.parseArgs` names the flag at fault (`Unknown option '--prot'`); its errors carry an ERR_PARSE_ARGS code. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
