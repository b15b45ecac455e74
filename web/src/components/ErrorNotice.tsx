import { isValidElement, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { fieldErrorsOf } from './field-errors';
import { errorText, statusOf } from './error-text';

export interface ErrorNoticeProps {
  /** What failed: a thrown value (an API error says why in words), or the words themselves (text or a sentence with a link). */
  error: unknown;
  /**
   * Where it is said: `page` in place of a page's or a panel's content (with Try again or Sign in),
   * `form` under the form or the buttons whose action failed, `inline` beside a button in a row.
   */
  place?: 'page' | 'form' | 'inline';
  /** A part of a page that could not be loaded ("the organization's people"): said by name. */
  what?: string;
  /** Offers to ask again (a failed load). */
  onRetry?: () => void;
  /** Words before the error's own ("The export did not run:"). */
  lead?: string;
  /**
   * A failed write whose field errors its form shows on the fields: nothing more is said, unless
   * none of them belongs to a field.
   */
  fieldsShown?: boolean;
  /** More of the same failure (the stages or tools it was about), under its sentence. */
  children?: ReactNode;
  className?: string;
}

/**
 * The console's one way to say that something failed, with role `alert` so a screen reader says
 * it at once (a role limit on a part of a page is a `note`: nothing the person did went wrong).
 * The words come from `errorText`: never a stack trace, a status code alone or a server's internals.
 */
export function ErrorNotice(props: ErrorNoticeProps) {
  const { error, place = 'page' } = props;
  // Nothing failed (a mutation not run yet): nothing to say.
  if (error === undefined || error === null || error === '') return null;
  if (props.fieldsShown && fieldErrorsOf(error).length > 0) return null;
  if (props.what !== undefined) return <PartNotice error={error} what={props.what} />;
  const text: ReactNode = typeof error === 'string' || isValidElement(error) ? error : errorText(error);
  const said = props.lead ? (
    <>
      {props.lead} {text}
    </>
  ) : (
    text
  );
  const classes = (base: string) => (props.className ? `${base} ${props.className}` : base);
  if (place === 'inline') {
    return (
      <span className={classes('form-error')} role="alert">
        {said}
      </span>
    );
  }
  if (place === 'form') {
    if (!props.children) {
      return (
        <p className={classes('form-error')} role="alert">
          {said}
        </p>
      );
    }
    return (
      <div className={classes('form-error')} role="alert">
        <p>{said}</p>
        {props.children}
      </div>
    );
  }
  return (
    <div className={classes('state state-error')} role="alert">
      <p>{said}</p>
      {statusOf(error) === 401 ? (
        <a href="/signin">Sign in</a>
      ) : (
        props.onRetry && (
          <button type="button" onClick={props.onRetry}>
            Try again
          </button>
        )
      )}
    </div>
  );
}

/** A part of a page that could not be shown: a role limit, an ended session, or a failure. */
function PartNotice({ error, what }: { error: unknown; what: string }) {
  const location = useLocation();
  const status = statusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (status === 403) {
    return (
      <p className="notice" role="note">
        Your role does not allow you to see {what} ({detail}). An owner or admin of your organization can change that.
      </p>
    );
  }
  if (status === 401) {
    const next = encodeURIComponent(`${location.pathname}${location.search}`);
    return (
      <p className="notice" role="alert">
        Your session has ended. <Link to={`/signin?next=${next}`}>Sign in again</Link> to see {what}.
      </p>
    );
  }
  return (
    <p className="notice notice-error" role="alert">
      {what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded: {detail}.
    </p>
  );
}
