import type { Executor } from '../store/db.js';
import type { ProjectInfo } from './types.js';

/*
 * The shape of a stage's warnings, apart from the stage status that gathers them
 * (services/stages/) and the domains that raise them (webhooks, plugins), so that a source
 * imports only this and never the status that calls it.
 */

/** A problem shown on a stage in the workflow editor; `kind` names its source. */
export interface StageWarning {
  kind: string;
  [detail: string]: unknown;
}

/**
 * A source of stage warnings: warnings by stage id, for one project. Stages it has nothing to
 * say about are simply absent from the map.
 */
export type StageWarningProvider = (db: Executor, project: ProjectInfo) => Promise<Map<string, StageWarning[]>>;
