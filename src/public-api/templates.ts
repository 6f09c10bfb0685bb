import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import { unexpectedAnswer } from '../core/errors.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import type { DeepReadonly } from '../core/plain-data.js';
import { isRecord, stringField } from '../core/plain-data.js';
import { idSegment } from '../core/request-path.js';
import { excerpt } from '../core/secrets.js';
import { serialise } from '../core/serialise.js';
import { traced } from '../core/tracing.js';
import type { Transport } from '../core/transport.js';
import {
  type TemplateCreated,
  TemplateCreatedSchema,
  type TemplateCreateRequest,
} from '../templates/schema.js';
import { assertValidTemplate } from '../templates/validate.js';

export interface CreateTemplateOptions extends RequestOptions {
  /**
   * Validate locally first (default `true`): an invalid template throws `TemplateValidationError` listing
   * every issue, and no request is made. Turn off only to let the server judge a rule you believe is stale.
   */
  validate?: boolean | undefined;
}

/** `templates.create`'s options, every one (see `OptionKeys`). */
const CREATE_KEYS = [...REQUEST_KEYS, 'validate'] as const;
const createKeys: OptionKeys<CreateTemplateOptions, typeof CREATE_KEYS> = CREATE_KEYS;

/** The public API's template operations. Only create has a documented path; the rest go through `request()`. */
export class Templates {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a template and submits it for upstream approval; a new template is usually `PENDING`.
   *
   * Every rule the spec states is checked locally first, all at once, with the server's codes and field keys.
   * Server answers become typed errors: 409 `ConflictError` (`UPSTREAM_017`, name and language exist),
   * 422 `UnprocessableEntityError` with `issues` (the same `{ code, field, message }` shape as the local
   * `TemplateValidationError.issues`), 404 `NotFoundError` (`APPLICATION_004`), and so on.
   *
   * @example
   * const created = await api.templates.create('app_123', {
   *   name: 'order_shipped', language: 'en_US', category: 'UTILITY',
   *   body: { text: 'Order {{1}} has shipped.', examples: ['#1042'] },
   * });
   * console.log(created.sourceId, created.status); // '1234567890', 'PENDING'
   */
  create(
    appId: string,
    template: DeepReadonly<TemplateCreateRequest>,
    options: CreateTemplateOptions = {},
  ): ApiPromise<TemplateCreated> {
    return apiPromise(
      () =>
        traced(
          'wa-gateway template.create',
          () => ({
            'http.request.method': 'POST',
            'server.address': this.#transport.host,
            'wa_gateway.template.category': stringField(template, 'category') ?? 'unknown',
          }),
          () => this.#create(appId, template, options),
          (data, span) => span.set('wa_gateway.template.status', String(data.status)),
        ),
      this.#transport,
    );
  }

  async #create(
    appId: string,
    template: DeepReadonly<TemplateCreateRequest>,
    given: CreateTemplateOptions | null,
  ): Promise<WithResponse<TemplateCreated>> {
    // First: `{ Validate: false }` ignored would refuse the template the caller meant the server to judge.
    refuseNearMisses(given, createKeys, 'templates.create');
    const options = given ?? {};
    const path = templatesPath(appId);
    const body = options.validate === false ? template : checkedCopy(template);
    const { data, response, attempts, call } = await this.#transport.json({
      method: 'POST',
      path,
      body,
      ...requestOf(options),
      idempotent: false,
    });
    const parsed = TemplateCreatedSchema.safeParse(isRecord(data) ? data['data'] : undefined);
    if (!parsed.success) {
      throw unexpectedAnswer(
        {
          status: response.status,
          method: 'POST',
          path,
          bodyExcerpt: excerpt(this.#transport.redact(JSON.stringify(data) ?? '')),
        },
        'but its body carries no template record; the template may have been created: list the templates ' +
          'before creating it again.',
      );
    }
    return { data: parsed.data, response: responseInfo(response, attempts, call) };
  }
}

/** `/wa/{appId}/templates`, refused (before any request) when the id cannot be one segment of it. */
function templatesPath(appId: string): string {
  return `/wa/${idSegment('templates.create', 'appId', appId, 'the application id (app_id) the template belongs to')}/templates`;
}

/**
 * The template as the plain data that is sent, checked: validated as given (a throwing getter or Proxy trap is
 * an issue of its field), then copied once, and the copy validated again, so what is sent is exactly what was
 * checked even if a getter answers differently on a second read.
 */
function checkedCopy(template: unknown): unknown {
  assertValidTemplate(template);
  const copy: unknown = JSON.parse(serialise(template));
  assertValidTemplate(copy);
  return copy;
}
