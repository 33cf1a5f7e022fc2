import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useDecide, type DecisionKind } from '../api/order';
import type { ConsoleOrder, Decision } from '../api/types';
import { money } from '../format';
import { useOperator } from '../operator-context';

/** The same limit as the server's (docs/API-CONSOLE.md), for the note and the reason alike. */
export const MAX_REASON_CHARS = 500;

/** The order was decided meanwhile: said by the screen (`onRefused`), since this panel is gone once it is read again. */
const INVALID_TRANSITION = 'invalid_transition';

/**
 * Approve or reject an order in review. The note for the team is optional and never shown to the borrower; a
 * rejection needs the reason the borrower reads, exactly as typed, in the app's language of the order's market (the
 * panel says which: English in India, Indonesian in Indonesia). Either takes a second, explicit confirmation that
 * restates what will happen. An application another reviewer holds cannot be decided here (the server refuses it too).
 * Decided meanwhile by someone else (409 `invalid_transition`), the order is read again and this panel goes with it:
 * `onRefused` has the screen say so.
 */
export function DecisionPanel({
  order,
  onDecided,
  onRefused,
}: {
  order: ConsoleOrder;
  onDecided: (decision: Decision) => void;
  onRefused: (text: string) => void;
}) {
  const { t } = useTranslation();
  const operator = useOperator();
  const decide = useDecide(order.order.orderNo);
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [noteError, setNoteError] = useState<string | null>(null);
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [pending, setPending] = useState<DecisionKind | null>(null);
  const heldByOther = order.claim !== null && order.claim.operatorId !== operator.id;

  const ask = (kind: DecisionKind) => {
    const tooLong = (text: string) => [...text.trim()].length > MAX_REASON_CHARS;
    const nextNoteError = tooLong(note) ? t('decision.tooLong', { max: MAX_REASON_CHARS }) : null;
    let nextReasonError: string | null = null;
    if (kind === 'reject' && !reason.trim()) nextReasonError = t('decision.reasonRequired');
    else if (kind === 'reject' && tooLong(reason)) nextReasonError = t('decision.tooLong', { max: MAX_REASON_CHARS });
    setNoteError(nextNoteError);
    setReasonError(nextReasonError);
    if (nextNoteError || nextReasonError) return;
    decide.reset();
    setPending(kind);
  };

  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) return;
    decide.mutate(
      { kind: pending, note: note.trim(), reason: reason.trim() },
      {
        onSuccess: onDecided,
        onError: (error) => {
          if (error.code === INVALID_TRANSITION) onRefused(t('decision.invalidTransition'));
        },
        onSettled: () => setPending(null),
      },
    );
  };

  const serverNoteError = decide.error?.fields.note;
  const serverReasonError = decide.error?.fields.reason;
  const noteFieldError = noteError ?? serverNoteError ?? null;
  const reasonFieldError = reasonError ?? serverReasonError ?? null;
  const busy = pending !== null || decide.isPending;
  const { orderNo, amount, currency, kfs } = order.order;

  return (
    <section className="panel decision" aria-labelledby="decision-title">
      <h2 id="decision-title">{t('decision.title')}</h2>
      {decide.isError && !serverNoteError && !serverReasonError && decide.error.code !== INVALID_TRANSITION && (
        <p role="alert" className="notice notice--error">
          {errorText(decide.error, t)}
        </p>
      )}
      <div className="field">
        <label htmlFor="decision-note">{t('decision.note')}</label>
        <textarea
          id="decision-note"
          rows={3}
          value={note}
          disabled={busy}
          aria-invalid={noteFieldError ? true : undefined}
          aria-describedby="decision-note-hint"
          onChange={(event) => setNote(event.target.value)}
        />
        <p className={noteFieldError ? 'field-error' : 'muted'} id="decision-note-hint">
          {noteFieldError ?? t('decision.noteHint', { max: MAX_REASON_CHARS })}
        </p>
      </div>
      <div className="field">
        <label htmlFor="decision-reason">{t('decision.reason')}</label>
        <textarea
          id="decision-reason"
          rows={3}
          value={reason}
          disabled={busy}
          aria-invalid={reasonFieldError ? true : undefined}
          aria-describedby="decision-reason-hint decision-reason-language"
          onChange={(event) => setReason(event.target.value)}
        />
        <p className={reasonFieldError ? 'field-error' : 'muted'} id="decision-reason-hint">
          {reasonFieldError ?? t('decision.reasonHint', { max: MAX_REASON_CHARS })}
        </p>
        <p className="muted" id="decision-reason-language">
          {t(`decision.reasonLanguage.${kfs.market}`)}
        </p>
      </div>
      {pending === null ? (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => ask('approve')} disabled={decide.isPending || heldByOther}>
            {t('decision.approve')}
          </button>
          <button type="button" className="button button--danger" onClick={() => ask('reject')} disabled={decide.isPending || heldByOther}>
            {t('decision.reject')}
          </button>
        </div>
      ) : (
        <form className="confirm" onSubmit={onConfirm} role="group" aria-labelledby="decision-confirm">
          <div id="decision-confirm">
            <p>
              <strong>{t(`decision.confirm.${pending}`, { orderNo, amount: money(amount, currency) })}</strong>
            </p>
            {pending === 'reject' && (
              <p>
                {t('decision.confirmReason')} “{reason.trim()}”
              </p>
            )}
            <p>{note.trim() ? `${t('decision.confirmNote')} “${note.trim()}”` : t('decision.confirmNoNote')}</p>
            {pending === 'approve' && <p className="muted">{t('decision.approveBorrowerSees')}</p>}
          </div>
          <div className="actions">
            <button
              type="submit"
              className={pending === 'approve' ? 'button button--primary' : 'button button--danger'}
              disabled={decide.isPending}
            >
              {t(`decision.confirmButton.${pending}`)}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setPending(null)} disabled={decide.isPending}>
              {t('decision.back')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
