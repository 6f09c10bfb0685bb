import type { TemplateCreateRequest } from '../templates/schema.js';
import { parameterProblem, statusProblem } from '../templates/send-check.js';
import { validateTemplate } from '../templates/validate.js';
import type { TemplateStatusEventName } from '../webhooks/template-status.js';
import type { SimulatedResponse } from './simulated-http.js';

/** A template the sandbox's registry holds. */
export interface RegisteredTemplate {
  sourceId: string;
  appId: string;
  name: string;
  language: string;
  category: string;
  /** `PENDING` when created; then what its lifecycle plan or `setStatus` made it. */
  status: RegisteredTemplateStatus;
  /** The reason of a `REJECTED` status (as its webhook carries it); `null` otherwise. */
  reason: string | null;
  /** The create request as received. */
  request: TemplateCreateRequest;
  createdAt: number;
}

/** The statuses a registered template takes: `PENDING`, then a status event's value. */
export type RegisteredTemplateStatus = 'PENDING' | TemplateStatusEventName;

/**
 * What happens to a created template, chosen per template (`registry.plan(name, plan)`, the inbox's template
 * page): it stays `PENDING` for `pendingMs` (default: the sandbox's `templateApprovalMs`), then becomes
 * `outcome` (`APPROVED`, or `REJECTED` with `reason`); with `pauseAfterMs`, an approved template is `PAUSED` that
 * long after. `outcome: 'PENDING'` leaves it pending until code moves it (`sandbox.setTemplateStatus`).
 */
export interface TemplateLifecyclePlan {
  outcome: 'APPROVED' | 'REJECTED' | 'PENDING';
  /** For `REJECTED`: the reason its webhook carries. Default `'INVALID_FORMAT'`. */
  reason?: string | undefined;
  pendingMs?: number | undefined;
  pauseAfterMs?: number | undefined;
}

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
  readonly #plans = new Map<string, TemplateLifecyclePlan>();

  constructor(
    options: { secretKeys?: readonly string[] | undefined; appIds?: readonly string[] | undefined } = {},
  ) {
    this.#secretKeys = options.secretKeys ?? ['sk_org_sandbox'];
    this.#appIds = options.appIds;
  }

  /** `POST {public_api_url}/wa/{app_id}/templates`. */
  create(request: { authorization: string | null; appId: string; body: string }): SimulatedResponse & {
    created?: RegisteredTemplate;
  } {
    if (!request.authorization)
      return fail(401, 'ORGANIZATION_SECRET_010', 'AUTHENTICATION', 'Secret key is missing.');
    // `Authorization: Bearer <SECRET_KEY>`, strictly: a bare key or another scheme is a key the API cannot read.
    const key = /^Bearer (\S+)$/.exec(request.authorization)?.[1];
    if (key === undefined || !this.#secretKeys.includes(key))
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
      reason: null,
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

  /**
   * Marks a template `APPROVED` without a webhook; returns it, or `undefined` when no such id. The sandbox's
   * `setTemplateStatus` also delivers the `message_template_status_update` event.
   */
  approve(sourceId: string): RegisteredTemplate | undefined {
    return this.setStatus(sourceId, 'APPROVED');
  }

  /** Sets a template's status (and the reason of a rejection); returns it, or `undefined` when no such id. */
  setStatus(
    sourceId: string,
    status: RegisteredTemplateStatus,
    reason?: string | null,
  ): RegisteredTemplate | undefined {
    const template = this.templates.find((t) => t.sourceId === sourceId);
    if (template) {
      template.status = status;
      template.reason = status === 'REJECTED' ? (reason ?? null) : null;
    }
    return template;
  }

  /** Chooses what happens to template `name` (every language, or only `language`) when it is created. */
  plan(name: string, plan: TemplateLifecyclePlan, language?: string): void {
    this.#plans.set(language === undefined ? name : `${name}\u0000${language}`, { ...plan });
  }

  /** The plan chosen for a template, if any (its language's first, then its name's). */
  planFor(template: { name: string; language: string }): TemplateLifecyclePlan | undefined {
    return this.#plans.get(`${template.name}\u0000${template.language}`) ?? this.#plans.get(template.name);
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
    const status = statusProblem(record.status, record.reason);
    if (status) return `template ${record.name} (${record.language}) ${status.message}`;
    const mismatch = parameterProblem(record.request, template.components);
    return mismatch ? `template parameter mismatch: ${mismatch.message}` : undefined;
  }
}
