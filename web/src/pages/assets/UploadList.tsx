import type { UploadItem } from './upload-file';

function stateOf(item: UploadItem): string {
  switch (item.status) {
    case 'queued':
      return 'Waiting';
    case 'uploading':
      return item.note ? `Paused: ${item.note}` : `${Math.floor((100 * item.sent) / Math.max(1, item.file.size))} %`;
    case 'importing':
      return item.note ? `Paused: ${item.note}` : 'Making the asset';
    case 'done':
      return 'Done';
    case 'skipped':
      return `Skipped: ${item.note ?? ''}`;
    case 'failed':
      return `Failed: ${item.note ?? ''}`;
  }
}

/** The files of an upload, each with its bar and state; failed ones can be sent again. */
export function UploadList({
  items,
  onRetry,
  onClear,
}: {
  items: UploadItem[];
  onRetry: (id?: number) => void;
  onClear: () => void;
}) {
  if (items.length === 0) return null;
  const count = (status: UploadItem['status']) => items.filter((i) => i.status === status).length;
  const [done, failed, skipped] = [count('done'), count('failed'), count('skipped')];
  const open = items.length - done - failed - skipped;
  return (
    <div className="uploads">
      <p role="status" className="upload-summary">
        {done} of {items.length} uploaded
        {failed > 0 && `, ${failed} failed`}
        {skipped > 0 && `, ${skipped} skipped`}
        {open > 0 ? '…' : '.'}
      </p>
      <div className="upload-actions">
        {failed > 0 && (
          <button type="button" onClick={() => onRetry()}>
            Retry the {failed} failed
          </button>
        )}
        {open === 0 && (
          <button type="button" onClick={onClear}>
            Clear the finished
          </button>
        )}
      </div>
      <ul className="upload-list" aria-label="Uploads">
        {items.map((item) => (
          <li key={item.id} className={`upload-item upload-${item.status}`}>
            <span className="upload-name" title={item.path}>
              {item.path}
            </span>
            <progress
              aria-label={`Upload of ${item.path}`}
              max={Math.max(1, item.file.size)}
              value={item.status === 'done' || item.stored ? Math.max(1, item.file.size) : item.sent}
            />
            <span className="upload-state">{stateOf(item)}</span>
            {item.status === 'failed' && (
              <button type="button" aria-label={`Retry ${item.path}`} onClick={() => onRetry(item.id)}>
                Retry
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
