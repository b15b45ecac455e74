import { useState } from 'react';

/**
 * The number of the part shown (a video's frame, a document's page), counted from 1: typed, it
 * goes there on Enter; something that is not a number puts the shown one back. What is typed is
 * held only until Enter, a blur or the part changing, so a frame change updates the input in
 * the render it happens in (no second render and paint after it).
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
  const [typed, setTyped] = useState<{ text: string; page: number } | undefined>(undefined);
  const text = typed && typed.page === page ? typed.text : String(page + 1);
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={1}
        max={total}
        value={text}
        onChange={(e) => setTyped({ text: e.target.value, page })}
        onBlur={() => setTyped(undefined)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          const n = Number(text);
          setTyped(undefined);
          if (text.trim() !== '' && Number.isFinite(n)) onGo(n - 1);
        }}
      />
    </label>
  );
}
