import type { AssetRow } from '../../api/assets';

const KINDS: [RegExp, string][] = [
  [/\.(png|jpe?g|gif|webp|bmp|avif|tiff?|svg)$/i, 'image'],
  [/\.(mp4|m4v|mov|webm|mkv|avi)$/i, 'video'],
  [/\.pdf$/i, 'PDF'],
  [/\.(txt|md|html?|json)$/i, 'text'],
  [/\.(dcm|nii|nii\.gz)$/i, 'scan'],
];

/** The asset's kind from its URL's path (the API keeps none). */
function kindOf(data: string): string {
  let path = data;
  try {
    path = new URL(data).pathname;
  } catch {
    // Not a URL: judged by its text.
  }
  return KINDS.find(([pattern]) => pattern.test(path))?.[1] ?? 'file';
}

/**
 * A row's small picture: the thumbnail an upload made (`metadata.thumbnail`), loaded lazily;
 * otherwise the asset's kind. The asset itself is never loaded for a row: a page of full images
 * would be megabytes.
 */
export function AssetThumb({ asset }: { asset: AssetRow }) {
  const thumbnail = asset.metadata?.thumbnail;
  if (typeof thumbnail === 'string' && /^https?:\/\//.test(thumbnail)) {
    return (
      <img
        className="asset-thumb"
        src={thumbnail}
        alt={`Preview of ${asset.externalId}`}
        loading="lazy"
        decoding="async"
      />
    );
  }
  return <span className="asset-kind">{kindOf(asset.data)}</span>;
}
