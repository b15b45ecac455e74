import type { FieldError } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { livePluginIds } from '../../store/repositories/plugin.repository.js';

/** A workflow write naming a plugin the organization does not have: one error per stage. */
export async function unknownPluginErrors(
  db: Executor,
  orgId: string,
  stages: readonly Stage[],
): Promise<FieldError[]> {
  const named = stages.flatMap((s, i) => (s.type === 'Plugin' && typeof s.pluginId === 'string' ? [{ s, i }] : []));
  const live = await livePluginIds(db, orgId, [...new Set(named.map((x) => x.s.pluginId as string))]);
  return named
    .filter(({ s }) => s.pluginId !== '' && !live.has(s.pluginId as string))
    .map(({ s, i }) => ({
      field: `stages[${i}].pluginId`,
      message: `no plugin "${s.pluginId}" is registered to the organization`,
    }));
}
