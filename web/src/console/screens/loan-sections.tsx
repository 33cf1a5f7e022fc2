// The order view's sections once the order is paid out: the payout, the plan with each installment's status and
// buckets (replayed from the ledger by the server), the payments, and the ledger with what each entry paid, bucket by
// bucket (a cooling-off exit: principal and interest only, the fees kept at payout refunded).
import { useTranslation } from 'react-i18next';
import type { ConsoleLoan, Currency } from '../api/types';
import { dateTime, day, money } from '../format';

type Buckets = ConsoleLoan['plan']['due'];

function buckets(b: Buckets, currency: Currency): string {
  return money(b.total, currency);
}

export function LoanSections({ loan, currency }: { loan: ConsoleLoan; currency: Currency }) {
  const { t } = useTranslation();
  const { plan } = loan;
  return (
    <>
      {loan.payout && (
        <section className="panel" aria-labelledby="payout-title">
          <h2 id="payout-title">{t('loan.payoutTitle')}</h2>
          <dl className="facts">
            {(
              [
                [t('loan.payoutDate'), day(loan.payout.date)],
                [t('loan.paidOut'), money(loan.payout.amount, currency)],
                [t('loan.bankReference'), loan.payout.bankReference],
                [t('loan.provider'), loan.payout.provider],
                [t('loan.recordedAt'), dateTime(loan.payout.at)],
                [t('loan.outstanding'), money(plan.outstanding.total, currency)],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <section className="panel" aria-labelledby="plan-title">
        <h2 id="plan-title">{t('loan.planTitle')}</h2>
        <table className="table">
          <caption>{t('loan.planCaption', { today: day(plan.today) })}</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('loan.dueDate')}</th>
              <th scope="col" className="num">{t('loan.principal')}</th>
              <th scope="col" className="num">{t('loan.interest')}</th>
              <th scope="col" className="num">{t('loan.fees')}</th>
              <th scope="col" className="num">{t('loan.lateCharges')}</th>
              <th scope="col" className="num">{t('loan.due')}</th>
              <th scope="col" className="num">{t('loan.paid')}</th>
              <th scope="col" className="num">{t('loan.outstanding')}</th>
              <th scope="col">{t('loan.status')}</th>
            </tr>
          </thead>
          <tbody>
            {plan.installments.map((i) => (
              <tr key={i.seq}>
                <td>{i.seq}</td>
                <td>{day(i.dueDate)}</td>
                <td className="num">{money(i.due.principal, currency)}</td>
                <td className="num">{money(i.due.interest, currency)}</td>
                <td className="num">{money(i.due.fees, currency)}</td>
                <td className="num">{money(i.due.lateCharges, currency)}</td>
                <td className="num">{buckets(i.due, currency)}</td>
                <td className="num">{buckets(i.paid, currency)}</td>
                <td className="num">{buckets(i.outstanding, currency)}</td>
                <td>
                  <span className={`status status--installment-${i.status}`}>{t(`loan.installment.${i.status}`)}</span>
                  {i.verifying && i.status !== 'paid' && <span className="muted"> · {t('loan.verifying')}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel" aria-labelledby="payments-title">
        <h2 id="payments-title">{t('loan.paymentsTitle')}</h2>
        {loan.payments.length === 0 ? (
          <p className="muted">{t('loan.noPayments')}</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t('loan.reference')}</th>
                <th scope="col">{t('loan.choice')}</th>
                <th scope="col">{t('loan.method')}</th>
                <th scope="col">UTR</th>
                <th scope="col" className="num">{t('loan.asked')}</th>
                <th scope="col" className="num">{t('loan.received')}</th>
                <th scope="col">{t('loan.status')}</th>
                <th scope="col">{t('loan.updated')}</th>
              </tr>
            </thead>
            <tbody>
              {loan.payments.map((p) => (
                <tr key={p.paymentId}>
                  <td>{p.reference}</td>
                  <td>{t(`repayments.choices.${p.choice}`, { defaultValue: p.choice })}</td>
                  <td>{t(`repayments.methods.${p.method}`, { defaultValue: p.method })}</td>
                  <td>{p.utr ?? '—'}</td>
                  <td className="num">{money(p.amount, currency)}</td>
                  <td className="num">{p.receivedAmount === null ? '—' : money(p.receivedAmount, currency)}</td>
                  <td>
                    {t(`loan.payment.${p.status}`, { defaultValue: p.status })}
                    {p.reason && <span className="muted"> · {p.reason}</span>}
                    {p.refundAmount !== null && (
                      <span className="muted">
                        {' · '}
                        {p.refundReference
                          ? t('loan.refundSent', { amount: money(p.refundAmount, currency), reference: p.refundReference })
                          : t('loan.refundOf', { amount: money(p.refundAmount, currency) })}
                      </span>
                    )}
                  </td>
                  <td>{dateTime(p.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" aria-labelledby="ledger-title">
        <h2 id="ledger-title">{t('loan.ledgerTitle')}</h2>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t('loan.seq')}</th>
              <th scope="col">{t('loan.kind')}</th>
              <th scope="col">{t('loan.date')}</th>
              <th scope="col" className="num">{t('loan.cash')}</th>
              <th scope="col" className="num">{t('loan.addedDue')}</th>
              <th scope="col" className="num">{t('loan.paidPrincipal')}</th>
              <th scope="col" className="num">{t('loan.paidInterest')}</th>
              <th scope="col" className="num">{t('loan.paidFees')}</th>
              <th scope="col" className="num">{t('loan.paidLateCharges')}</th>
              <th scope="col" className="num">{t('loan.refunded')}</th>
            </tr>
          </thead>
          <tbody>
            {loan.ledger.map((e) => (
              <tr key={e.seq}>
                <td>{e.seq}</td>
                <td>
                  {t(`loan.entry.${e.kind}`)}
                  {e.reverses !== null && <span className="muted"> · {t('loan.reverses', { seq: e.reverses })}</span>}
                </td>
                <td>{day(e.date)}</td>
                <td className="num">{money(e.cash, currency)}</td>
                <td className="num">{money(e.due.total, currency)}</td>
                <td className="num">{money(e.paid.principal, currency)}</td>
                <td className="num">{money(e.paid.interest, currency)}</td>
                <td className="num">{money(e.paid.fees, currency)}</td>
                <td className="num">{money(e.paid.lateCharges, currency)}</td>
                <td className="num">{money(e.refunded, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
