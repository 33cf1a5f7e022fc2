import { Button } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useCreatePayment } from '../../api/create-payment';
import { usePaymentTypes, type PaymentMethod } from '../../api/payment-types';
import { useRepayment, type RepaymentChoice } from '../../api/repayment';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { LoadFailed } from './common';
import { MethodPicker } from './method-picker';
import { paymentScreen, startPayment } from './payment-screen';
import './servicing.css';

const CHOICES: readonly string[] = ['due', 'payoff', 'cooling_off'];

/**
 * Paying one repayment choice: its amount as priced today, the market's payment types, and one payment created per
 * (choice, method, amount, day), with its idempotency key kept across retries and reloads.
 */
export function PayPage() {
  const { t } = useTranslation();
  const { orderNo = '', choice = '' } = useParams();
  const repayment = useRepayment(orderNo);
  const types = usePaymentTypes(orderNo);
  const backTo = `/orders/${encodeURIComponent(orderNo)}`;
  const offered = repayment.data?.choices.find((item) => item.choice === choice);
  return (
    <Screen title={t('servicing.pay.title')} backTo={backTo}>
      <OrderMoneyProvider orderNo={orderNo}>
        {repayment.isPending || types.isPending ? (
          <LoadingState />
        ) : repayment.isError ? (
          <LoadFailed error={repayment.error} title={t('servicing.repay.loadFailed')} onRetry={() => void repayment.refetch()} />
        ) : types.isError ? (
          <LoadFailed error={types.error} title={t('servicing.pay.typesFailed')} onRetry={() => void types.refetch()} />
        ) : repayment.data.verifying ? (
          <StateNotice kind="empty" title={t('servicing.pay.verifying')} text={t('servicing.pay.verifyingText')} />
        ) : !CHOICES.includes(choice) || !offered ? (
          <StateNotice kind="empty" title={t('servicing.pay.unavailable')} text={t('servicing.pay.unavailableText')} />
        ) : types.data.length === 0 ? (
          <StateNotice kind="empty" title={t('servicing.pay.noTypes')} />
        ) : (
          <PayForm
            orderNo={orderNo}
            choice={offered.choice}
            amount={offered.amount}
            today={repayment.data.today}
            types={types.data}
          />
        )}
      </OrderMoneyProvider>
    </Screen>
  );
}

function PayForm({
  orderNo,
  choice,
  amount,
  today,
  types,
}: {
  orderNo: string;
  choice: RepaymentChoice;
  amount: number;
  today: string;
  types: Parameters<typeof MethodPicker>[0]['types'];
}) {
  const { t } = useTranslation();
  const money = useMoney();
  const navigate = useNavigate();
  const [method, setMethod] = useState<PaymentMethod | null>(types[0]?.method ?? null);
  const create = useCreatePayment(orderNo);
  const pay = () => {
    if (!method) return;
    const of = { orderNo, choice, method, amount, today };
    startPayment(
      of,
      (idempotencyKey, onSuccess) => create.mutate({ choice, method, idempotencyKey }, { onSuccess }),
      (payment) => void navigate(paymentScreen(payment), { replace: true }),
    );
  };
  const problem = create.error && create.error.status !== 401 ? create.error : null;
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="pay-choice">
        <h2 className="kfs__heading" id="pay-choice">
          {t(`servicing.choice.${choice}`)}
        </h2>
        <p className="servicing__big">{money(amount)}</p>
        <p className="kfs__note">{t(`servicing.choiceNote.${choice}`)}</p>
      </section>
      <MethodPicker types={types} value={method} onChange={setMethod} />
      {problem && (
        <p className="servicing__problem" role="alert">
          {problem.code === 'choice_unavailable' ? t('servicing.pay.unavailableText') : errorText(problem, t)}
        </p>
      )}
      <Button block color="primary" size="large" disabled={!method} loading={create.isPending} onClick={pay}>
        {t('servicing.pay.action', { amount: money(amount) })}
      </Button>
    </div>
  );
}
