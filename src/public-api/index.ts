export {
  PublicApiClient,
  type PublicApiClientOptions,
  type PublicApiRequestOptions,
} from './client.js';
export type { CreateTemplateOptions, Templates } from './templates.js';
