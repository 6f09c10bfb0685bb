/** What a browser form bundles: `validateTemplate` from the templates entry, exposed for the page's script. */
import { validateTemplate } from '../../../src/templates/index.js';

(globalThis as { waValidateTemplate?: typeof validateTemplate }).waValidateTemplate = validateTemplate;
