import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useDecide, type DecisionKind } from '../api/order';
import type { ConsoleOrder, Decision } from '../api/types';
import { money } from '../format';

/** The same limit as the server's (docs/API-CONSOLE.md): the borrower reads the reason. */
export const MAX_REASON_CHARS = 500;

/**
 * Approve or reject an order in review. Both need a reason (the borrower is shown it); either takes a second,
 * explicit confirmation that restates what will happen.
 */
export function DecisionPanel({ order, onDecided }: { order: ConsoleOrder; onDecided: (decision: Decision) => void }) {
  const { t } = useTranslation();
  const decide = useDecide(order.order.orderNo);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [pending, setPending] = useState<DecisionKind | null>(null);

  const ask = (kind: DecisionKind) => {
    const trimmed = reason.trim();
    if (!trimmed) return setReasonError(t(`decision.reasonRequired.${kind}`));
    if ([...trimmed].length > MAX_REASON_CHARS) return setReasonError(t('decision.reasonTooLong', { max: MAX_REASON_CHARS }));
    setReasonError(null);
    decide.reset();
    setPending(kind);
  };

  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) return;
    decide.mutate({ kind: pending, reason: reason.trim() }, { onSuccess: onDecided, onSettled: () => setPending(null) });
  };

  const serverReasonError = decide.error?.fields.reason;
  const fieldError = reasonError ?? serverReasonError ?? null;
  const { orderNo, amount, currency } = order.order;

  return (
    <section className="panel decision" aria-labelledby="decision-title">
      <h2 id="decision-title">{t('decision.title')}</h2>
      {decide.isError && !serverReasonError && (
        <p role="alert" className="notice notice--error">
          {decide.error.code === 'invalid_transition' ? t('decision.invalidTransition') : errorText(decide.error, t)}
        </p>
      )}
      <div className="field">
        <label htmlFor="decision-reason">{t('decision.reason')}</label>
        <textarea
          id="decision-reason"
          rows={3}
          value={reason}
          disabled={pending !== null || decide.isPending}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby="decision-reason-hint"
          onChange={(event) => setReason(event.target.value)}
        />
        <p className={fieldError ? 'field-error' : 'muted'} id="decision-reason-hint">
          {fieldError ?? t('decision.reasonHint', { max: MAX_REASON_CHARS })}
        </p>
      </div>
      {pending === null ? (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => ask('approve')} disabled={decide.isPending}>
            {t('decision.approve')}
          </button>
          <button type="button" className="button button--danger" onClick={() => ask('reject')} disabled={decide.isPending}>
            {t('decision.reject')}
          </button>
        </div>
      ) : (
        <form className="confirm" onSubmit={onConfirm} role="group" aria-labelledby="decision-confirm">
          <p id="decision-confirm">
            <strong>
              {t(`decision.confirm.${pending}`, { orderNo, amount: money(amount, currency) })}
            </strong>{' '}
            {t('decision.confirmReason')} “{reason.trim()}”
          </p>
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
