import type { IndexedAsset } from '../../../store/repositories/label-import.repository.js';
import type { ImportedImage } from './imported-labels.js';
import { framesOfAsset } from '../../../workflow/answer.js';

/*
 * Finds the asset of an imported image: by asset id, then external id, then file name (the
 * external id's last path segment, or the last path segment of the asset file's address, which is
 * what COCO's file_name and VOC's filename hold), then the file name without its extension (YOLO
 * label files). A name shared by several assets matches none of them (reported as ambiguous).
 */

export interface MatchedAsset {
  id: string;
  width: number | undefined;
  height: number | undefined;
  /** The asset's frame or page count (metadata.frameTotal or pageTotal), when it declares one. */
  frames: number | undefined;
}

const AMBIGUOUS = Symbol('ambiguous');
type Slot = MatchedAsset | typeof AMBIGUOUS;

const baseName = (s: string) => s.split(/[\\/]/).pop() ?? s;
const stem = (s: string) => baseName(s).replace(/\.[^.]*$/, '');

/** The file name in an asset's address: its path's last segment, decoded, without the query. */
function fileNameOf(address: string): string | undefined {
  try {
    const segment = new URL(address).pathname.split('/').pop();
    return segment ? decodeURIComponent(segment) : undefined;
  } catch {
    return undefined;
  }
}

function sizeOf(metadata: string | null): { width: number | undefined; height: number | undefined } {
  try {
    const m = (metadata ? JSON.parse(metadata) : {}) as Record<string, unknown>;
    const pos = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
    return { width: pos(m.width), height: pos(m.height) };
  } catch {
    return { width: undefined, height: undefined };
  }
}

export class AssetMatcher {
  private readonly byId = new Map<string, MatchedAsset>();
  private readonly byExternal = new Map<string, MatchedAsset>();
  private readonly byName = new Map<string, Slot>();
  private readonly byStem = new Map<string, Slot>();

  constructor(assets: readonly IndexedAsset[]) {
    const put = (map: Map<string, Slot>, key: string, a: MatchedAsset) =>
      map.set(key, map.has(key) && map.get(key) !== a ? AMBIGUOUS : a);
    for (const row of assets) {
      const a = { id: row.id, ...sizeOf(row.metadata), frames: framesOfAsset(row.metadata) };
      this.byId.set(row.id, a);
      this.byExternal.set(row.external_id, a);
      const names = new Set([baseName(row.external_id), fileNameOf(row.data) ?? '']);
      names.delete('');
      for (const name of names) {
        put(this.byName, name, a);
        put(this.byStem, stem(name), a);
      }
    }
  }

  /** The asset, or the reason none was found. */
  match(image: ImportedImage): MatchedAsset | string {
    const direct =
      (image.assetId && this.byId.get(image.assetId)) || (image.externalId && this.byExternal.get(image.externalId));
    if (direct) return direct;
    if (!image.fileName) return 'no asset of the project has this id or externalId';
    const slot = this.byName.get(baseName(image.fileName)) ?? this.byStem.get(stem(image.fileName));
    if (slot === AMBIGUOUS) return `several assets of the project are named "${image.fileName}"`;
    return slot ?? `no asset of the project is named "${image.fileName}"`;
  }
}
