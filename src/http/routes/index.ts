import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { assetBuilderRoutes } from './asset-builder.routes.js';
import { assetRoutes } from './assets.routes.js';
import { auditRoutes } from './audit.routes.js';
import { benchmarkRoutes } from './benchmarks.routes.js';
import { attachmentRoutes } from './attachments.routes.js';
import { exportRoutes } from './exports.routes.js';
import { fileExplorerRoutes } from './file-explorer.routes.js';
import { issueRoutes } from './issues.routes.js';
import { labelRoutes } from './labels.routes.js';
import { labelImportRoutes } from './label-import.routes.js';
import { memberRoutes } from './members.routes.js';
import { performanceRoutes } from './performance.routes.js';
import { pluginRoutes } from './plugins.routes.js';
import { projectRoutes } from './projects.routes.js';
import { sessionRoutes } from './session.routes.js';
import { storageRoutes } from './storages.routes.js';
import { taskRoutes } from './tasks.routes.js';
import { uploadRoutes } from './uploads.routes.js';
import { workflowRoutes } from './workflow.routes.js';

/** Every /v2 route of the contract, one file per domain. */
export async function registerRoutes(v2: FastifyInstance, ctx: AppContext): Promise<void> {
  await v2.register(sessionRoutes, { ctx });
  await v2.register(projectRoutes, { ctx });
  await v2.register(memberRoutes, { ctx });
  await v2.register(auditRoutes, { ctx });
  await v2.register(storageRoutes, { ctx });
  await v2.register(fileExplorerRoutes, { ctx });
  await v2.register(assetRoutes, { ctx });
  await v2.register(assetBuilderRoutes, { ctx });
  await v2.register(taskRoutes, { ctx });
  await v2.register(uploadRoutes, { ctx });
  await v2.register(workflowRoutes, { ctx });
  await v2.register(pluginRoutes, { ctx });
  await v2.register(issueRoutes, { ctx });
  await v2.register(attachmentRoutes, { ctx });
  await v2.register(labelRoutes, { ctx });
  await v2.register(labelImportRoutes, { ctx });
  await v2.register(exportRoutes, { ctx });
  await v2.register(performanceRoutes, { ctx });
  await v2.register(benchmarkRoutes, { ctx });
}
