export {
  PUBLIC_API_RETRY_RULES,
  PublicApiClient,
  type PublicApiClientOptions,
  type PublicApiRequestOptions,
} from './client.js';
export { type CreateTemplateOptions, Templates } from './templates.js';
