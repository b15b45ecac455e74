import { useId, useState } from 'react';
import { useCommentIssue, type IssueComment } from '../api/work';
import { ErrorNotice } from '../components/ErrorNotice';
import './issue-thread.css';

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * An issue's thread: its answers, oldest first, and a form to add one. The labeler answers the
 * reviewer here, the reviewer answers back; the editor and the console's task page both show it.
 */
export function IssueThread({
  taskId,
  issue,
  number,
}: {
  taskId: string;
  issue: { _id: string; content: string; comments: IssueComment[] };
  /** The issue's number in the list (and on its pin), to name its form and buttons. */
  number: number;
}) {
  const id = useId();
  const comment = useCommentIssue(taskId);
  const [open, setOpen] = useState(false);
  const [content, setContent] = useState('');
  const name = `issue ${number}`;
  const send = () =>
    comment.mutate(
      { issueId: issue._id, content: content.trim() },
      {
        onSuccess: () => {
          setContent('');
          setOpen(false);
        },
      },
    );
  return (
    <div className="issue-thread">
      {issue.comments.length > 0 && (
        <ol className="issue-comments" aria-label={`Answers to ${name}`}>
          {issue.comments.map((c) => (
            <li key={c._id}>
              <p className="issue-comment-head">
                <strong>{c.createdBy}</strong> <time dateTime={c.createdAt}>{when(c.createdAt)}</time>
              </p>
              <p className="issue-comment-text">{c.content}</p>
            </li>
          ))}
        </ol>
      )}
      {!open && (
        <button type="button" onClick={() => setOpen(true)} aria-label={`Answer ${name}`}>
          Answer
        </button>
      )}
      {open && (
        <form
          className="issue-answer"
          aria-label={`Answer to ${name}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (content.trim()) send();
          }}
        >
          <label htmlFor={`${id}-answer`}>Your answer to {name}</label>
          <textarea
            id={`${id}-answer`}
            rows={2}
            value={content}
            // Opened by a click on Answer: the person types at once.
            autoFocus
            onChange={(e) => setContent(e.target.value)}
          />
          {comment.isError && <ErrorNotice place="form" error={comment.error} />}
          <div className="issue-answer-actions">
            <button type="submit" className="primary" disabled={comment.isPending || !content.trim()}>
              Send answer
            </button>
            <button
              type="button"
              onClick={() => {
                setOpen(false);
                comment.reset();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
