import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Hovers and compiler errors show a public method's result by name (`Report`, `StatsChannel[]`), not as the
// expanded zod structure. Checked with the compiler's own printer on a file that calls each method.

const root = fileURLToPath(new URL('../..', import.meta.url));
const probe = join(root, 'test/types/__named-results-probe.ts');
const source = `
import { GatewayClient, PlatformClient, PublicApiClient, validateMessage, validateTemplate } from '../../src/index.js';
import { parseWebhook } from '../../src/webhooks/index.js';
declare const p: PlatformClient;
declare const pub: PublicApiClient;
declare const gw: GatewayClient;
export const report = await p.reports.get();
export const grouped = await p.reports.get({ group_based: true });
export const stats = await p.stats.get();
export const conversations = await p.reports.conversations();
export const feedbacks = await p.reports.feedbacks();
export const created = await pub.templates.create('app', {} as never);
export const detail = await p.conversations.archive('u');
export const login = await p.auth.login();
export const download = await gw.media.download('m', { phoneNumberId: '1' });
export const sent = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'x' } });
export const many = gw.messages.sendMany([]);
export const stream = p.messages.stream({});
export const batch = await p.messages.batchSendAll({ message: 'x', conversations: [] });
export const checked = validateMessage({});
export const template = validateTemplate({});
export const events = parseWebhook({});
`;

const EXPECTED: Record<string, string> = {
  report: 'Report',
  grouped: 'GroupBasedReport',
  stats: 'StatsChannel[]',
  conversations: 'ConversationRecord[]',
  feedbacks: 'Feedback[]',
  created: 'TemplateCreated',
  detail: 'DetailResponse',
  login: 'LoginResult',
  download: 'MediaDownload',
  sent: 'SendResult',
  many: 'AsyncGenerator<SendManyResult, void, undefined>',
  stream: 'AsyncGenerator<StreamMessage, void, undefined>',
  batch: 'BatchSendAllResult',
  checked: 'MessageValidationResult',
  template: 'TemplateValidationResult',
  events: 'WebhookEvent[]',
};

describe('public results have names', () => {
  it('every public method result prints as a named type', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => {},
      },
    )!;
    const host = ts.createCompilerHost(config.options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version) =>
      name === probe ? ts.createSourceFile(name, source, version) : read(name, version);
    host.fileExists = (
      (exists) => (name: string) =>
        name === probe || exists(name)
    )(host.fileExists);
    const program = ts.createProgram([probe], { ...config.options, noEmit: true }, host);
    const checker = program.getTypeChecker();
    const printed: Record<string, string> = {};
    ts.forEachChild(program.getSourceFile(probe)!, (node) => {
      if (
        !ts.isVariableStatement(node) ||
        !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      )
        return;
      for (const d of node.declarationList.declarations) {
        printed[(d.name as ts.Identifier).text] = checker.typeToString(checker.getTypeAtLocation(d.name));
      }
    });
    expect(printed).toEqual(EXPECTED);
  }, 60_000);
});
