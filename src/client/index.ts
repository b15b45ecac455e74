/** `import { Annotary } from 'annotary/client'`: the typed client of the Annotary REST API v2. */
export { Annotary, type AnnotaryOptions } from './annotary.js';
export {
  AnnotaryConfigError,
  checkDeployment,
  DEFAULT_EU_URL,
  DEPLOYMENTS,
  type Deployment,
  resolveConnection,
} from './deployments.js';
export { AnnotaryError, type FieldError } from './errors.js';
export { paginate } from './paginate.js';
export { profilePath, readProfile, saveDeploymentProfile, type Profile, type DeploymentProfile } from './profile.js';
export { provesNotApplied, retryingFetch, type RetryOptions } from './retry.js';
export type { ApiBody, ApiData, ApiQuery, ListItem, Paths } from './types.js';
export type { paths } from './schema.js';
