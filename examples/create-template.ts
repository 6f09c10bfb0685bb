/**
 * Creating a message template from an admin form: validate locally, then `PublicApiClient.templates.create`,
 * with every failure turned into messages next to the form's inputs.
 *
 * Shows: `assertValidTemplate` (every problem at once, before any request, and it narrows the untyped form input),
 * one function that maps local issues (`TemplateValidationError`) and the server's 422 (`UnprocessableEntityError`)
 * to form fields, since both carry the same `{ code, field, message }` shape, and the 409 for a name that exists.
 *
 * Run:  PUBLIC_API_SECRET_KEY=sk_... PUBLIC_API_BASE_URL=https://api.example.com/api/v1 APP_ID=... \
 *         npx tsx examples/create-template.ts template.json
 *
 * In your app, import from 'wa-gateway-sdk' instead of '../src/index.js'.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  assertValidTemplate,
  ConflictError,
  type FieldIssue,
  PublicApiClient,
  type TemplateCreated,
  TemplateValidationError,
  UnprocessableEntityError,
} from '../src/index.js';

/** Messages per input, keyed by the server's field name: `name`, `body.examples`, `buttons.url`. */
export type FormErrors = Record<string, string[]>;

/**
 * Local and server issues alike. `field` drops list indices (`buttons.url` for every button), because that is the
 * key the server uses; the message names the item ("Button 2 url ..."). Local issues also carry `path` with the
 * index (`['buttons', 1, 'url']`) if your form needs to highlight one button: the server's do not.
 */
export function toFormErrors(issues: readonly FieldIssue[]): FormErrors {
  const errors: FormErrors = {};
  for (const issue of issues) {
    // '' is the template as a whole (not an object at all, say).
    const key = issue.field || 'template';
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

export type CreateOutcome =
  | { ok: true; template: TemplateCreated }
  | { ok: false; reason: 'invalid' | 'rejected' | 'conflict'; errors: FormErrors };

export async function createTemplate(
  api: PublicApiClient,
  appId: string,
  draft: unknown,
): Promise<CreateOutcome> {
  try {
    assertValidTemplate(draft);
    // `create` validates again by default; cheap, and it keeps a call site without the line above just as safe.
    return { ok: true, template: await api.templates.create(appId, draft) };
  } catch (error) {
    if (error instanceof TemplateValidationError) {
      return { ok: false, reason: 'invalid', errors: toFormErrors(error.issues) };
    }
    // The server's own checks, for a rule it applies that this SDK version does not (yet): the same shape.
    if (error instanceof UnprocessableEntityError) {
      return { ok: false, reason: 'rejected', errors: toFormErrors(error.issues) };
    }
    // 409 UPSTREAM_017: a name is unique per language. Retrying cannot help; the person must pick another name.
    if (error instanceof ConflictError) {
      return {
        ok: false,
        reason: 'conflict',
        errors: { name: ['A template with this name already exists in this language; choose another name.'] },
      };
    }
    // Authentication, an application outside the organisation, the network: not the form's problem.
    throw error;
  }
}

export async function main(options: {
  baseUrl: string;
  secretKey: string;
  appId: string;
  draft: unknown;
}): Promise<CreateOutcome> {
  const api = new PublicApiClient({ secretKey: options.secretKey, baseUrl: options.baseUrl });
  return createTemplate(api, options.appId, options.draft);
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  const secretKey = process.env['PUBLIC_API_SECRET_KEY'];
  const baseUrl = process.env['PUBLIC_API_BASE_URL'];
  const appId = process.env['APP_ID'];
  if (!file || !secretKey || !baseUrl || !appId) {
    console.error(
      'Usage: PUBLIC_API_SECRET_KEY=... PUBLIC_API_BASE_URL=... APP_ID=... npx tsx examples/create-template.ts <file.json>',
    );
    process.exit(2);
  }
  const outcome = await main({ baseUrl, secretKey, appId, draft: JSON.parse(await readFile(file, 'utf8')) });
  if (outcome.ok) {
    const { name, language, status, sourceId } = outcome.template;
    console.log(`created ${name} (${language}): ${status}, id ${sourceId}`);
  } else {
    console.error(`not created (${outcome.reason}):`);
    for (const [field, messages] of Object.entries(outcome.errors)) {
      for (const message of messages) console.error(`  ${field}: ${message}`);
    }
    process.exitCode = 1;
  }
}
