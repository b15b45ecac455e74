import { ErrorNotice } from '../../../components/ErrorNotice';
import { useEffect, useRef, useState } from 'react';

/**
 * The browser's own player, for a video whose codec WebCodecs cannot decode (or a browser
 * without WebCodecs): it plays and seeks by time, so the frame it names is approximate, and
 * nothing is drawn on it. The frame shown is read from each presented frame's media time
 * (`requestVideoFrameCallback`), or the time sought, at the container's frame rate.
 */
export function FallbackPlayer({ url, frameRate }: { url: string; frameRate: number }) {
  const ref = useRef<HTMLVideoElement>(null);
  const [frame, setFrame] = useState<number | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const video = ref.current;
    if (!video || !('requestVideoFrameCallback' in video)) return;
    let handle = 0;
    const tick: VideoFrameRequestCallback = (_now, meta) => {
      setFrame(Math.floor(meta.mediaTime * frameRate + 1e-3));
      handle = video.requestVideoFrameCallback(tick);
    };
    handle = video.requestVideoFrameCallback(tick);
    return () => video.cancelVideoFrameCallback(handle);
  }, [frameRate]);
  return (
    <figure className="video-fallback">
      <video
        ref={ref}
        src={url}
        controls
        preload="metadata"
        aria-label="Video in the browser's player"
        onError={() => setFailed(true)}
        // A seek while paused may present no new frame callback: the time sought names the frame.
        onSeeked={(e) => setFrame(Math.floor(e.currentTarget.currentTime * frameRate + 1e-3))}
      />
      <figcaption role="note">
        Frame positions are approximate: this video plays in the browser&apos;s own player, which seeks by time, not by
        frame. Drawing and frame questions are off for it.
        {frame !== undefined && (
          <output aria-label="Approximate frame" data-frame={frame}>
            {' '}
            About frame {frame + 1}.
          </output>
        )}
      </figcaption>
      {failed && <ErrorNotice place="form" error="The browser's own player cannot play this video either." />}
    </figure>
  );
}
