import { Button } from 'antd-mobile';
import { useEffect, useEffectEvent, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useApply } from '../../api/apply';
import { useApplyAgreement } from '../../api/apply-agreement';
import { useConfirmOrder } from '../../api/confirm-order';
import { useMe } from '../../api/me';
import {
  forgetConfirmKey,
  forgetSentConfirmation,
  idempotencyKeyFor,
  keepSentConfirmation,
  sentConfirmationFor,
  type ConfirmationOf,
  type SentConfirmation,
} from '../../api/idempotency-key';
import type { KeyFactStatement, LoanAgreement, OrderDetail, QuoteRequest } from '../../api/types';
import { sessionStorageOrNull } from '../../boot';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { AgreementParties, AgreementTerms } from '../orders/agreement-doc-page';
import type { OrderPageState } from '../orders/order-page';
import { KeyFactStatementView } from './key-fact-statement';
import '../loans.css';

/**
 * Confirm: the Key Fact Statement (PRODUCT.md §3) of the amount and term in the URL, from `POST /apply` so a
 * refusal shows before the statement is read; this loan's agreement (`POST /apply/agreement`), accepted with the
 * statement; an explicit acceptance of both; then `POST /orders` with the hash of the statement accepted, where the
 * server freezes the agreement with the order. Everything it needs is in the URL, so a reload shows it again, and the
 * confirmation's idempotency key survives the reload (idempotency-key.ts). So does the confirmation sent: when its
 * answer was lost but its order made, `POST /apply` refuses the reload with `open_order_exists`, and the confirmation
 * is sent again to open its order (ApplyRefused). What is kept is the signed-in borrower's (`GET /me`): another
 * borrower signing in on the same phone never sees it nor sends it.
 */
export function KfsPage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const [params] = useSearchParams();
  const amountText = params.get('amount') ?? '';
  const termCode = params.get('term') ?? '';
  const valid = /^\d{1,15}$/.test(amountText) && termCode !== '';
  const request: QuoteRequest | null = valid ? { productCode: code, amount: Number(amountText), termCode } : null;
  const apply = useApply(request);
  // The borrower whose confirmation is kept and sent again; the app asks for them on every signed-in screen.
  const me = useMe();
  const borrower = me.data?.id ?? null;
  const agreement = useApplyAgreement(apply.isSuccess ? request : null);
  const back = `/products/${encodeURIComponent(code)}${valid ? `?${new URLSearchParams({ amount: amountText, term: termCode }).toString()}` : ''}`;

  return (
    <Screen title={t('kfs.title')} backTo={back}>
      {!request ? (
        <StateNotice kind="empty" title={t('kfs.incomplete')} actions={<WayForward to={back} label={t('kfs.choose')} />} />
      ) : apply.isPending ? (
        <LoadingState />
      ) : apply.isError ? (
        // Whether a kept confirmation is this borrower's is known once they are.
        isOpenOrder(apply.error) && me.isPending ? (
          <LoadingState />
        ) : (
          <ApplyRefused error={apply.error} request={request} borrower={borrower} productUrl={back} onRetry={() => void apply.refetch()} />
        )
      ) : (
        <div className="confirm">
          <KeyFactStatementView kfs={apply.data} />
          <AgreementPreview agreement={agreement.data} failed={agreement.isError} error={agreement.error} onRetry={() => void agreement.refetch()} />
          <ConfirmPanel
            kfs={apply.data}
            agreement={agreement.data ?? null}
            request={request}
            borrower={borrower}
            productUrl={back}
            onKfsChanged={() => {
              void apply.refetch();
              void agreement.refetch();
            }}
            refreshing={apply.isFetching || agreement.isFetching}
          />
        </div>
      )}
    </Screen>
  );
}

function WayForward({ to, label }: { to: string; label: string }) {
  return (
    <Link className="state__link" to={to}>
      {label}
    </Link>
  );
}

/** What a refusal means for the borrower and where they can go from it (docs/API-BORROWER.md, apply). */
interface Refusal {
  title: string;
  text: string;
  action: { to: string; label: string } | null;
  /** Whether trying the same thing again can work (a lost connection can; a refusal cannot). */
  retry: boolean;
}

function useRefusal(): (error: ApiError | Error, productUrl: string) => Refusal {
  const { t } = useTranslation();
  return (error, productUrl) => {
    const code = error instanceof ApiError ? error.code : '';
    const fields = error instanceof ApiError ? Object.values(error.fields) : [];
    switch (code) {
      case 'certification_incomplete':
        return {
          title: t('confirm.refused.certification.title'),
          text: t('confirm.refused.certification.text'),
          action: { to: '/certification', label: t('confirm.refused.certification.action') },
          retry: false,
        };
      case 'open_order_exists':
        return {
          title: t('confirm.refused.openOrder.title'),
          text: t('confirm.refused.openOrder.text'),
          action: { to: '/orders', label: t('confirm.refused.openOrder.action') },
          retry: false,
        };
      case 'not_eligible':
        return {
          title: t('confirm.refused.notEligible.title'),
          text: error instanceof ApiError && error.msg ? error.msg : t('confirm.refused.notEligible.text'),
          action: { to: '/certification', label: t('confirm.refused.notEligible.action') },
          retry: false,
        };
      case 'validation_failed':
      case 'cap_exceeded':
        return {
          title: t('confirm.refused.terms.title'),
          text: [errorText(error, t), ...fields].join(' '),
          action: { to: productUrl, label: t('confirm.refused.terms.action') },
          retry: false,
        };
      default:
        return { title: t('kfs.loadFailed'), text: errorText(error, t), action: null, retry: true };
    }
  };
}

function isOpenOrder(error: Error): boolean {
  return error instanceof ApiError && error.code === 'open_order_exists';
}

/** The server answered and would answer the same again: not a lost answer (0), a fault (5xx), a wait (429) or a sign-in (401). */
function refused(error: ApiError): boolean {
  return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
}

/** A confirmation answered with its order: what was kept for it is forgotten, and the loan opens. */
function useConfirmed(borrower: string | null): (of: ConfirmationOf, order: OrderDetail) => void {
  const navigate = useNavigate();
  return (of, order) => {
    // The order exists: applying again later (after a cancel, say) is a new application, under a new key.
    forgetConfirmKey(of, sessionStorageOrNull());
    forgetSentConfirmation(of, borrower, sessionStorageOrNull());
    // Replace: going back from the new loan should not land on a statement that is already confirmed.
    const state: OrderPageState = { confirmed: true };
    void navigate(`/orders/${encodeURIComponent(order.orderNo)}`, { replace: true, state });
  };
}

/**
 * A refusal of `POST /apply`. Its `open_order_exists` may be this very loan: confirmed, the answer lost (a timeout, a
 * dropped connection), the page reloaded. The confirmation kept when it was sent then goes again, and the server answers
 * the same request with its order while that is open (docs/API-BORROWER.md, `POST /orders`). Another order, none
 * kept, or one kept for another borrower, and the refusal stands.
 */
function ApplyRefused({
  error,
  request,
  borrower,
  productUrl,
  onRetry,
}: {
  error: Error;
  request: QuoteRequest;
  /** The signed-in borrower's id, or null when it could not be read (nothing kept is sent then). */
  borrower: string | null;
  productUrl: string;
  onRetry: () => void;
}) {
  const toRefusal = useRefusal();
  const confirm = useConfirmOrder();
  const confirmed = useConfirmed(borrower);
  const [sent] = useState(() => (isOpenOrder(error) ? sentConfirmationFor(request, borrower, sessionStorageOrNull()) : null));
  const resend = (body: SentConfirmation) =>
    confirm.mutate(body, {
      onSuccess: (order) => confirmed(body, order),
      onError: (failure) => {
        // Not this loan's order, or one that has ended (`idempotency_key_reused`): nothing to send again.
        if (refused(failure)) forgetSentConfirmation(body, borrower, sessionStorageOrNull());
      },
    });
  const resendOnShow = useEffectEvent(resend);
  // Once, however often effects run (React's strict mode runs them twice).
  const started = useRef(false);
  useEffect(() => {
    if (!sent || started.current) return;
    started.current = true;
    resendOnShow(sent);
  }, [sent]);

  if (sent && !(confirm.error && refused(confirm.error))) {
    if (!confirm.error) return <LoadingState />;
    // Its answer lost again: the order may still be there, so it can be sent again.
    const lost = toRefusal(confirm.error, productUrl);
    return <StateNotice kind="error" title={lost.title} text={lost.text} onRetry={() => resend(sent)} />;
  }
  const refusal = toRefusal(error, productUrl);
  return (
    <StateNotice
      kind="error"
      title={refusal.title}
      text={refusal.text}
      onRetry={refusal.retry ? onRetry : undefined}
      actions={refusal.action && <WayForward to={refusal.action.to} label={refusal.action.label} />}
    />
  );
}

/** This loan's agreement, to read before accepting it with the statement. */
function AgreementPreview({
  agreement,
  failed,
  error,
  onRetry,
}: {
  agreement: LoanAgreement | undefined;
  failed: boolean;
  error: Error | null;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  return (
    <section className="confirm__agreement" aria-labelledby="confirm-agreement">
      <h2 className="agreement-doc__kfs-heading" id="confirm-agreement">
        {t('confirm.agreement.heading')}
      </h2>
      {agreement ? (
        <>
          <p className="kfs__note confirm__agreement-intro">{t('confirm.agreement.intro')}</p>
          <AgreementParties agreement={agreement} idPrefix="confirm-agreement" />
          <AgreementTerms agreement={agreement} idPrefix="confirm-agreement" />
        </>
      ) : failed ? (
        <StateNotice kind="error" title={t('confirm.agreement.loadFailed')} text={error ? errorText(error, t) : undefined} onRetry={onRetry} />
      ) : (
        <LoadingState />
      )}
    </section>
  );
}

function ConfirmPanel({
  kfs,
  agreement,
  request,
  borrower,
  productUrl,
  onKfsChanged,
  refreshing,
}: {
  kfs: KeyFactStatement;
  /** Null until this loan's agreement is on the screen: nothing can be accepted unread. */
  agreement: LoanAgreement | null;
  request: QuoteRequest;
  /** The signed-in borrower's id, whose the confirmation kept is; null while unknown (nothing is kept then). */
  borrower: string | null;
  productUrl: string;
  onKfsChanged: () => void;
  refreshing: boolean;
}) {
  const { t } = useTranslation();
  const confirm = useConfirmOrder();
  const confirmed = useConfirmed(borrower);
  const toRefusal = useRefusal();
  // Acceptance is of one statement: a new one (kfs_changed) is unticked until it is read and accepted.
  const [acceptedHash, setAcceptedHash] = useState<string | null>(null);
  const accepted = acceptedHash === kfs.contentHash && agreement !== null;

  const onConfirm = () => {
    if (!accepted || confirm.isPending || agreement === null) return;
    const of = { ...request, kfsHash: kfs.contentHash };
    const send = (again: boolean) => {
      // The agreement read is sent with it: the server freezes it only if it is still what it would freeze.
      const body = { ...of, agreementHash: agreement.agreementHash, idempotencyKey: idempotencyKeyFor(of, sessionStorageOrNull()) };
      // Kept until answered: if the answer is lost, a reload that finds its order sends it again (ApplyRefused).
      if (borrower) keepSentConfirmation(body, borrower, sessionStorageOrNull());
      confirm.mutate(body, {
        onSuccess: (order) => confirmed(of, order),
        onError: (error) => {
          if (refused(error)) forgetSentConfirmation(of, borrower, sessionStorageOrNull());
          // The kept key named an order that has ended since: this is a new application.
          if (error.code === 'idempotency_key_reused' && !again) {
            forgetConfirmKey(of, sessionStorageOrNull());
            send(true);
            return;
          }
          if (error.code === 'kfs_changed' || error.fields.agreementHash) {
            setAcceptedHash(null);
            onKfsChanged();
          }
        },
      });
    };
    send(false);
  };

  let problem: ReactNode = null;
  let canConfirm = true;
  if (confirm.error && confirm.error.status !== 401) {
    if (confirm.error.code === 'kfs_changed') {
      problem = (
        <div className="confirm__problem" role="alert">
          <p className="confirm__problem-title">{t('confirm.changed.title')}</p>
          <p>{t('confirm.changed.text')}</p>
        </div>
      );
    } else if (confirm.error.fields.agreementHash) {
      // The borrower's particulars in the agreement changed since it was read (e.g. a new bank account).
      problem = (
        <div className="confirm__problem" role="alert">
          <p className="confirm__problem-title">{t('confirm.agreementChanged.title')}</p>
          <p>{confirm.error.fields.agreementHash}</p>
        </div>
      );
    } else {
      const refusal = toRefusal(confirm.error, productUrl);
      canConfirm = refusal.retry;
      problem = (
        <div className="confirm__problem" role="alert">
          <p className="confirm__problem-title">{refusal.retry ? t('confirm.failed') : refusal.title}</p>
          <p>{refusal.text}</p>
          {refusal.retry && <p>{t('confirm.retryHint')}</p>}
          {refusal.action && (
            <Link className="confirm__problem-link" to={refusal.action.to}>
              {refusal.action.label}
            </Link>
          )}
        </div>
      );
    }
  }

  return (
    <section className="card confirm__panel" aria-labelledby="confirm-heading">
      <h2 className="kfs__heading" id="confirm-heading">
        {t('confirm.heading')}
      </h2>
      <label className="confirm__accept">
        <input
          type="checkbox"
          checked={accepted}
          disabled={refreshing || agreement === null}
          onChange={(event) => setAcceptedHash(event.target.checked ? kfs.contentHash : null)}
        />
        <span>{t('confirm.accept')}</span>
      </label>
      {problem}
      {canConfirm && (
        <>
          <Button
            block
            color="primary"
            size="large"
            disabled={!accepted || refreshing}
            loading={confirm.isPending}
            loadingText={t('confirm.submitting')}
            onClick={onConfirm}
            aria-describedby={accepted ? undefined : 'confirm-hint'}
          >
            {t('confirm.submit')}
          </Button>
          {!accepted && (
            <p className="confirm__hint" id="confirm-hint">
              {t('confirm.acceptFirst')}
            </p>
          )}
        </>
      )}
    </section>
  );
}
