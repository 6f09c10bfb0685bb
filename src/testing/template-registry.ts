import { scanVariables } from '../templates/rules.js';
import type { TemplateCreateRequest } from '../templates/schema.js';
import { validateTemplate } from '../templates/validate.js';
import type { SimulatedResponse } from './gateway-simulator.js';

/** A template the sandbox's registry holds. */
export interface RegisteredTemplate {
  sourceId: string;
  appId: string;
  name: string;
  language: string;
  category: string;
  status: 'PENDING' | 'APPROVED';
  /** The create request as received. */
  request: TemplateCreateRequest;
  createdAt: number;
}

/** One `components[]` item of a template send, as far as the registry reads it. */
interface SendComponent {
  type?: unknown;
  sub_type?: unknown;
  index?: unknown;
  parameters?: unknown;
}

/** What a send must carry for one component of an approved template: the parameter types allowed, in order. */
interface Expected {
  key: string;
  label: string;
  types: readonly (readonly string[])[];
}

const TEXTUAL = ['text', 'currency', 'date_time'] as const;
const MEDIA_HEADER: Readonly<Record<string, string>> = {
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
};

// `code` is left out when the spec names none for the rule: an answer never carries an invented code.
const fail = (status: number, code: string | null, group: string, description: string, fields?: object) => ({
  status,
  body: {
    isSuccess: false,
    errors: { ...(code ? { code } : {}), group, description, ...(fields ? { fields } : {}) },
  },
});

/**
 * The public API's template create (`POST {public_api_url}/wa/{app_id}/templates`) and the gateway's view of
 * approved templates, as data like `GatewaySimulator`: it takes the parts of a request and returns status and
 * body. A created template is `PENDING`; `approve()` makes it `APPROVED`. A template send is then checked
 * against it: the count and types of `components[].parameters` must match, or the gateway answers `GW_001`.
 */
export class TemplateRegistry {
  readonly templates: RegisteredTemplate[] = [];
  readonly #secretKeys: readonly string[];
  readonly #appIds: readonly string[] | undefined;
  #counter = 0;

  constructor(options: { secretKeys?: readonly string[]; appIds?: readonly string[] } = {}) {
    this.#secretKeys = options.secretKeys ?? ['sk_org_sandbox'];
    this.#appIds = options.appIds;
  }

  /** `POST {public_api_url}/wa/{app_id}/templates`. */
  create(request: { authorization: string | null; appId: string; body: string }): SimulatedResponse & {
    created?: RegisteredTemplate;
  } {
    if (!request.authorization)
      return fail(401, 'ORGANIZATION_SECRET_010', 'AUTHENTICATION', 'Secret key is missing.');
    if (!this.#secretKeys.includes(request.authorization.replace(/^Bearer /, '')))
      return fail(401, 'ORGANIZATION_SECRET_011', 'AUTHENTICATION', 'Secret key is invalid.');
    return this.submit(request.appId, request.body);
  }

  /** A create that skips the secret key check: what the inbox's preview page submits. */
  submit(appId: string, body: string): SimulatedResponse & { created?: RegisteredTemplate } {
    if (this.#appIds && !this.#appIds.includes(appId))
      return fail(404, 'APPLICATION_004', 'NOT_FOUND', 'Application does not belong to the organization.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return fail(400, 'REQ_001', 'VALIDATION', 'Malformed request.');
    }
    const checked = validateTemplate(parsed);
    if (!checked.valid) {
      const first = checked.issues.find((i) => i.code) ?? checked.issues[0]!;
      const fields = Object.fromEntries(
        checked.issues.map((i) => [
          i.field,
          {
            ...(i.code ? { code: i.code } : {}),
            description: i.message,
            ...(i.params ? { params: i.params } : {}),
          },
        ]),
      );
      return fail(422, first.code, 'VALIDATION', first.message, fields);
    }
    const t = checked.template;
    if (this.find(t.name, t.language))
      return fail(409, 'UPSTREAM_017', 'CONFLICT', 'A template with this name and language already exists.');
    const created: RegisteredTemplate = {
      sourceId: String(1_000_000_000 + ++this.#counter),
      appId,
      name: t.name,
      language: t.language,
      category: t.category,
      status: 'PENDING',
      request: t,
      createdAt: Date.now(),
    };
    this.templates.push(created);
    const { sourceId, name, language, category, status } = created;
    return {
      status: 200,
      body: { data: { sourceId, name, language, category, status }, isSuccess: true },
      created,
    };
  }

  find(name: string, language: string): RegisteredTemplate | undefined {
    return this.templates.find((t) => t.name === name && t.language === language);
  }

  /** Marks a template `APPROVED`; returns it, or `undefined` when no such id. */
  approve(sourceId: string): RegisteredTemplate | undefined {
    const template = this.templates.find((t) => t.sourceId === sourceId);
    if (template) template.status = 'APPROVED';
    return template;
  }

  /**
   * Why the gateway would refuse this template send, or `undefined` when it matches the approved template (or
   * the registry does not hold that name and language: then it is not the registry's to judge).
   */
  refusal(template: {
    name: string;
    language: { code: string };
    components?: readonly unknown[];
  }): string | undefined {
    const record = this.find(template.name, template.language.code);
    if (!record) return undefined;
    if (record.status !== 'APPROVED')
      return `template ${record.name} (${record.language}) is ${record.status}, not approved.`;
    const expected = expectedComponents(record.request);
    const given = new Map<string, unknown[]>();
    for (const c of (template.components ?? []) as SendComponent[]) {
      const key = c.type === 'button' ? `button:${String(c.index)}` : String(c.type);
      given.set(key, Array.isArray(c.parameters) ? c.parameters : []);
    }
    for (const e of expected) {
      const params = given.get(e.key) ?? [];
      given.delete(e.key);
      if (params.length !== e.types.length)
        return `template parameter mismatch: ${e.label} expects ${e.types.length} parameter(s), got ${params.length}.`;
      for (let i = 0; i < params.length; i++) {
        const type = (params[i] as { type?: unknown } | null)?.type;
        if (!e.types[i]!.includes(String(type)))
          return `template parameter mismatch: ${e.label} parameter ${i + 1} must be ${e.types[i]!.join(' or ')}, got ${String(type)}.`;
      }
    }
    for (const [key, params] of given) {
      if (params.length > 0 && !key.startsWith('button:'))
        return `template parameter mismatch: ${key} has ${params.length} parameter(s) the template does not take.`;
      if (params.length > 0 && !isQuickReply(record.request, key))
        return `template parameter mismatch: ${key.replace(':', ' ')} takes no parameters.`;
    }
    return undefined;
  }
}

function isQuickReply(request: TemplateCreateRequest, key: string): boolean {
  return request.buttons?.[Number(key.slice('button:'.length))]?.type === 'QUICK_REPLY';
}

/** The parameters a send must carry for each component of an approved template, in the spec's send shape. */
function expectedComponents(t: TemplateCreateRequest): Expected[] {
  const out: Expected[] = [];
  const header = t.header;
  if (header?.format === 'TEXT' && header.text) {
    const n = scanVariables(header.text).distinct.length;
    if (n > 0) out.push({ key: 'header', label: 'header', types: Array(n).fill(['text']) });
  } else if (header?.format && MEDIA_HEADER[header.format]) {
    out.push({ key: 'header', label: 'header', types: [[MEDIA_HEADER[header.format]!]] });
  }
  const n = t.body.text ? scanVariables(t.body.text).distinct.length : 0;
  if (n > 0) out.push({ key: 'body', label: 'body', types: Array(n).fill(TEXTUAL) });
  t.buttons?.forEach((b, i) => {
    if (b.type === 'URL' && b.url && scanVariables(b.url).distinct.length > 0)
      out.push({ key: `button:${i}`, label: `button ${i} (url)`, types: [['text']] });
  });
  return out;
}
