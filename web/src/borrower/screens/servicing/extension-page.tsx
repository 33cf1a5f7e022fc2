import { Button } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { useAcceptExtension } from '../../api/accept-extension';
import { useExtension, type Extension } from '../../api/extension';
import { usePaymentTypes, type PaymentInstructions, type PaymentMethod } from '../../api/payment-types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { LoadFailed } from './common';
import { MethodPicker } from './method-picker';
import { paymentScreen, startPayment } from './payment-screen';
import './servicing.css';

/**
 * The extension ("repay delay"), titled as the loan page's link to it: its fee, the new due date and the revised
 * schedule, before accepting it.
 */
export function ExtensionPage() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const extension = useExtension(orderNo);
  const types = usePaymentTypes(orderNo);
  const unavailable = extension.error instanceof ApiError && extension.error.code === 'choice_unavailable';
  // A payment of the loan is with finance: the extension waits until it is decided (it may have paid the installment).
  const waiting = extension.error instanceof ApiError && extension.error.code === 'payment_waiting';
  return (
    <Screen title={t('servicing.extension.title')} backTo={`/orders/${encodeURIComponent(orderNo)}`}>
      <OrderMoneyProvider orderNo={orderNo}>
        {extension.isPending || types.isPending ? (
          <LoadingState />
        ) : unavailable ? (
          <StateNotice kind="empty" title={t('servicing.extension.none')} text={t('servicing.extension.noneText')} />
        ) : waiting ? (
          <StateNotice kind="empty" title={t('servicing.extension.waiting')} text={t('servicing.extension.waitingText')} />
        ) : extension.isError ? (
          <LoadFailed error={extension.error} title={t('servicing.extension.loadFailed')} onRetry={() => void extension.refetch()} />
        ) : types.isError ? (
          <LoadFailed error={types.error} title={t('servicing.pay.typesFailed')} onRetry={() => void types.refetch()} />
        ) : types.data.length === 0 ? (
          <StateNotice kind="empty" title={t('servicing.pay.noTypes')} />
        ) : (
          <ExtensionDetails extension={extension.data} types={types.data} />
        )}
      </OrderMoneyProvider>
    </Screen>
  );
}

function ExtensionDetails({ extension, types }: { extension: Extension; types: PaymentInstructions[] }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const navigate = useNavigate();
  const [method, setMethod] = useState<PaymentMethod | null>(types[0]?.method ?? null);
  const accept = useAcceptExtension(extension.orderNo);
  const problem = accept.error && accept.error.status !== 401 ? accept.error : null;
  const onAccept = () => {
    if (!method) return;
    const of = { orderNo: extension.orderNo, choice: 'extension', method, amount: extension.fee, today: `${extension.installment}:${extension.newDueDate}` };
    startPayment(
      of,
      (idempotencyKey, onSuccess) => accept.mutate({ method, idempotencyKey }, { onSuccess }),
      (payment) => void navigate(paymentScreen(payment), { replace: true }),
    );
  };
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="extension-head">
        <h2 className="kfs__heading" id="extension-head">
          {/* Later installments move with it: then the heading says so, not that one due date moves. */}
          {t(extension.revisedSchedule.length > 1 ? 'servicing.extension.offerMany' : 'servicing.extension.offer', {
            days: extension.days,
            seq: extension.installment,
          })}
        </h2>
        <dl className="figures">
          <div className="figures__row figures__row--strong">
            <dt>{t('servicing.extension.fee')}</dt>
            <dd>{money(extension.fee)}</dd>
          </div>
          <div className="figures__row">
            <dt>{t('servicing.extension.currentDueDate')}</dt>
            <dd>{formatDate(extension.currentDueDate, market)}</dd>
          </div>
          <div className="figures__row figures__row--total">
            <dt>{t('servicing.extension.newDueDate')}</dt>
            <dd>{formatDate(extension.newDueDate, market)}</dd>
          </div>
        </dl>
        <p className="kfs__note">{t('servicing.extension.note')}</p>
      </section>
      <section className="card" aria-labelledby="extension-schedule">
        <h2 className="kfs__heading" id="extension-schedule">
          {t('servicing.extension.schedule')}
        </h2>
        <table className="schedule">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('servicing.extension.dueDate')}</th>
              <th scope="col">{t('servicing.extension.amount')}</th>
            </tr>
          </thead>
          <tbody>
            {extension.revisedSchedule.map((row) => (
              <tr key={row.seq}>
                <td>{row.seq}</td>
                <td>{formatDate(row.dueDate, market)}</td>
                <td>
                  {money(row.toPay)}
                  <span className="schedule__split">
                    {t('servicing.extension.split', { principal: money(row.principal), interest: money(row.interest), fees: money(row.fees) })}
                  </span>
                  {row.paid > 0 && (
                    <span className="schedule__split">{t('servicing.extension.paidOf', { paid: money(row.paid), amount: money(row.amount) })}</span>
                  )}
                  {row.lateCharges > 0 && (
                    <span className="schedule__split">{t('servicing.extension.lateCharges', { amount: money(row.lateCharges) })}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <MethodPicker types={types} value={method} onChange={setMethod} />
      {problem && (
        <p className="servicing__problem" role="alert">
          {problem.code === 'choice_unavailable' ? t('servicing.extension.noneText') : errorText(problem, t)}
        </p>
      )}
      <Button block color="primary" size="large" disabled={!method} loading={accept.isPending} onClick={onAccept}>
        {t('servicing.extension.accept', { amount: money(extension.fee) })}
      </Button>
    </div>
  );
}
