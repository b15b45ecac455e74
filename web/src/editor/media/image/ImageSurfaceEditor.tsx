import { useEffect, useState } from 'react';
import type { SurfaceEditorProps } from '../../core/surface';
import { MediaUnreadable } from '../../shell/MediaUnreadable';
import { refusalOf } from '../fetch-media';
import { ImageEditor } from './ImageEditor';
import { useImage } from './useImage';

/**
 * Why an image the browser did not load cannot be shown: the address's answer is asked for once
 * the load failed (a refused or missing file, a web page), else the file is not a picture.
 */
function useImageProblem(url: string | undefined, failed: boolean): string | undefined {
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    setProblem(undefined);
    if (!failed) return;
    if (!url) return setProblem('The task has no file.');
    let live = true;
    void fetch(url)
      .catch(() => null)
      .then((res) => {
        const refused = refusalOf('picture', res);
        if (live) setProblem(refused?.message ?? 'The file is not an image this browser can show.');
      });
    return () => {
      live = false;
    };
  }, [url, failed]);
  return problem;
}

/** The image editor as the work page opens an image asset. */
export function ImageSurfaceEditor({ asset, onPick, onBrushChange, ...props }: SurfaceEditorProps) {
  const image = useImage(asset.url);
  const problem = useImageProblem(asset.url, image.status === 'error');
  if (problem) {
    return <MediaUnreadable given={props} problem={problem} />;
  }
  return (
    <ImageEditor
      {...props}
      imageUrl={asset.url}
      onBrushChange={onBrushChange}
      onPick={
        onPick
          ? (position, objectId, onMask) =>
              onPick(objectId ? { objectId, ...(onMask ? { position } : {}) } : { position })
          : undefined
      }
    />
  );
}
