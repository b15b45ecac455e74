import { useCallback, useReducer } from 'react';
import type { EditorAnswer } from '../core/answer';
import { commit, redo, startHistory, undo, type History } from '../core/history';

type Action = { type: 'commit'; answer: EditorAnswer } | { type: 'undo' } | { type: 'redo' };

function reducer(h: History<EditorAnswer>, a: Action): History<EditorAnswer> {
  if (a.type === 'undo') return undo(h);
  if (a.type === 'redo') return redo(h);
  return commit(h, a.answer);
}

/**
 * The answer being edited with its undo history, for any medium's editor: `change` records an
 * edit, `travel` undoes or redoes one; each tells `onChange` (drafts are saved from there).
 */
export function useAnswerHistory(initial: EditorAnswer, onChange: (answer: EditorAnswer) => void) {
  const [history, dispatch] = useReducer(reducer, initial, startHistory);
  const change = useCallback(
    (next: EditorAnswer) => {
      dispatch({ type: 'commit', answer: next });
      onChange(next);
    },
    [onChange],
  );
  const travel = (type: 'undo' | 'redo') => {
    const next = type === 'undo' ? undo(history) : redo(history);
    dispatch({ type });
    if (next !== history) onChange(next.present);
  };
  return {
    answer: history.present,
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    change,
    travel,
  };
}
