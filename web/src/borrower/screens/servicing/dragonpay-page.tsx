import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMarket } from '@/shared/market/market-context';
import type { Market } from '@/shared/market/market';
import { usePayment, type Payment } from '../../api/payment';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { CopyRow, LoadFailed } from './common';
import { PaymentOutcome, paymentStatusKey } from './payment-outcome';
import './servicing.css';

/** An instant in the market's own time zone, e.g. "27 Nov 2026, 14:05" / "27 Nov 2026 14.05". */
export function formatInstant(epochMs: number, market: Market): string {
  return new Intl.DateTimeFormat(market.locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: market.id === 'in' ? 'Asia/Kolkata' : 'Asia/Jakarta',
  }).format(new Date(epochMs));
}

/**
 * Dragonpay's payment instructions (SPEC.md §2, `/dragonpayPaymentInstructions`): the reference number to quote, the
 * amount, where it can be paid and until when. Dragonpay's postback credits the loan; this page shows the payment's
 * status as it stands.
 */
export function DragonpayPage() {
  const { t } = useTranslation();
  const { paymentId = '' } = useParams();
  const payment = usePayment(paymentId);
  const backTo = payment.data ? `/orders/${encodeURIComponent(payment.data.orderNo)}` : '/orders';
  return (
    <Screen title={t('servicing.dragonpay.title')} backTo={backTo}>
      {payment.isPending ? (
        <LoadingState />
      ) : payment.isError ? (
        <LoadFailed error={payment.error} title={t('servicing.dragonpay.loadFailed')} onRetry={() => void payment.refetch()} />
      ) : payment.data.method !== 'dragonpay' ? (
        <StateNotice kind="empty" title={t('servicing.dragonpay.notDragonpay')} />
      ) : (
        <OrderMoneyProvider orderNo={payment.data.orderNo}>
          <DragonpayInstructions payment={payment.data} />
        </OrderMoneyProvider>
      )}
    </Screen>
  );
}

function DragonpayInstructions({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  const how = payment.instructions;
  const expiresAt = how.expiresAt;
  // When the page was opened: the reference's expiry is checked against it (a render stays pure).
  const [openedAt] = useState(() => Date.now());
  const expired = payment.status === 'pending' && expiresAt !== null && expiresAt <= openedAt;
  return (
    <div className="servicing dragonpay">
      <section className="card" aria-labelledby="dragonpay-head">
        <h2 className="kfs__heading" id="dragonpay-head">
          {t(`servicing.choice.${payment.choice}`)}
        </h2>
        <p className="servicing__big">{money(payment.amount)}</p>
        <p className={`payment-status payment-status--${expired ? 'rejected' : payment.status}`} role="status">
          {expired ? t('servicing.dragonpay.expired') : t(paymentStatusKey(payment))}
        </p>
        <PaymentOutcome payment={payment} />
      </section>
      {payment.status === 'pending' && !expired && (
        <section className="card" aria-labelledby="dragonpay-how">
          <h2 className="kfs__heading" id="dragonpay-how">
            {t('servicing.dragonpay.how', { amount: money(payment.amount) })}
          </h2>
          <dl className="copy-list">
            <CopyRow label={t('servicing.dragonpay.reference')} value={payment.reference} />
            <CopyRow label={t('servicing.field.amount')} value={money(payment.amount)} />
            {how.payeeName && <CopyRow label={t('servicing.field.payee')} value={how.payeeName} />}
          </dl>
          {expiresAt !== null && (
            <p className="dragonpay__expiry">{t('servicing.dragonpay.expiresAt', { when: formatInstant(expiresAt, market) })}</p>
          )}
          {how.channels.length > 0 && (
            <>
              <h3 className="dragonpay__where">{t('servicing.dragonpay.where')}</h3>
              <ul className="dragonpay__channels">
                {how.channels.map((channel) => (
                  <li key={channel}>{channel}</li>
                ))}
              </ul>
            </>
          )}
          <ol className="dragonpay__steps">
            <li>{t('servicing.dragonpay.step1')}</li>
            <li>{t('servicing.dragonpay.step2', { amount: money(payment.amount) })}</li>
            <li>{t('servicing.dragonpay.step3')}</li>
          </ol>
        </section>
      )}
      <Link className="order__agreement" to={`/orders/${encodeURIComponent(payment.orderNo)}`}>
        {t('servicing.payment.toLoan')}
      </Link>
    </div>
  );
}
