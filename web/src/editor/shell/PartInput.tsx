import { useEffect, useState } from 'react';

/**
 * The number of the part shown (a video's frame, a document's page), counted from 1: typed, it
 * goes there on Enter; something that is not a number puts the shown one back.
 */
export function PartInput({
  label,
  page,
  total,
  onGo,
}: {
  label: string;
  page: number;
  total: number;
  onGo(page: number): void;
}) {
  const [text, setText] = useState(String(page + 1));
  useEffect(() => setText(String(page + 1)), [page]);
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={1}
        max={total}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          const n = Number(text);
          if (Number.isFinite(n)) onGo(n - 1);
          else setText(String(page + 1));
        }}
      />
    </label>
  );
}
