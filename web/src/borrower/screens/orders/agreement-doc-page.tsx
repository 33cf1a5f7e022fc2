import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { useLoanAgreement, type LoanAgreement } from '../../api/order-agreement';
import { Screen } from '../../layout/screen';
import { LONG_VALUE, LongText } from '../../ui/long-value';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { KeyFactStatementView } from '../products/key-fact-statement';
import { formatDateTime } from './format';
import { OrderNotFound } from './order-not-found';
import '../loans.css';

/**
 * One loan's agreement as the server renders it (its language, its clauses): the parties, the accepted Key
 * Fact Statement in full, then the clauses. ID and account numbers arrive masked.
 */
export function AgreementDocPage() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const agreement = useLoanAgreement(orderNo);
  return (
    <Screen title={t('agreementDoc.title')} backTo={`/orders/${encodeURIComponent(orderNo)}`}>
      {agreement.isPending ? (
        <LoadingState />
      ) : agreement.isError ? (
        agreement.error instanceof ApiError && agreement.error.status === 404 ? (
          <OrderNotFound />
        ) : (
          <StateNotice kind="error" title={t('agreementDoc.loadFailed')} text={errorText(agreement.error, t)} onRetry={() => void agreement.refetch()} />
        )
      ) : (
        <AgreementDocument agreement={agreement.data} />
      )}
    </Screen>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div className="parties__fact">
      <dt>{label}</dt>
      <dd className={LONG_VALUE}>
        <LongText text={value} />
      </dd>
    </div>
  );
}

function AgreementDocument({ agreement }: { agreement: LoanAgreement }) {
  const { t } = useTranslation();
  const market = useMarket();
  return (
    <div className="agreement-doc">
      {/* The server's own title names the loan; too long for the top bar. */}
      <h2 className="agreement-doc__title">{agreement.title}</h2>
      <p className="agreement-doc__intro">
        {t('agreementDoc.intro', { orderNo: agreement.orderNo, date: formatDateTime(agreement.acceptedAt, market) })}
      </p>
      <AgreementParties agreement={agreement} />
      <h2 className="agreement-doc__kfs-heading">{t('agreementDoc.kfs')}</h2>
      <KeyFactStatementView
        kfs={agreement.kfs}
        scheduleNote={t('order.scheduleNote', { date: formatDate(agreement.kfs.disbursalDate, market) })}
      />
      <AgreementTerms agreement={agreement} />
    </div>
  );
}

/** The lender and the borrower as the agreement names them (numbers masked). */
export function AgreementParties({ agreement, idPrefix = 'agreement' }: { agreement: LoanAgreement; idPrefix?: string }) {
  const { t } = useTranslation();
  const { lender, borrower } = agreement;
  const officer = lender.grievanceOfficer;
  return (
    <section className="card" aria-labelledby={`${idPrefix}-parties`}>
      <h2 className="kfs__heading" id={`${idPrefix}-parties`}>
        {t('agreementDoc.parties')}
      </h2>
      <h3 className="parties__heading">{t('agreementDoc.lender')}</h3>
      <dl className="parties">
        <Fact label={t('agreementDoc.name')} value={lender.name} />
        {lender.licence && <Fact label={t('agreementDoc.licence')} value={lender.licence} />}
        <Fact label={t('agreementDoc.grievance')} value={[officer.name, officer.email, officer.phone].join(', ')} />
      </dl>
      <h3 className="parties__heading">{t('agreementDoc.borrower')}</h3>
      <dl className="parties">
        <Fact label={t('agreementDoc.name')} value={borrower.fullName} />
        <Fact label={t('agreementDoc.idNumber')} value={borrower.idNumberMasked} />
        <Fact label={t('agreementDoc.address')} value={borrower.address} />
        <Fact label={t('agreementDoc.phone')} value={borrower.phoneMasked} />
        <Fact label={t('agreementDoc.bankAccount')} value={`${borrower.bankName} ${borrower.bankAccountMasked}`} />
      </dl>
    </section>
  );
}

/** The agreement's clauses as the server wrote them. */
export function AgreementTerms({ agreement, idPrefix = 'agreement' }: { agreement: LoanAgreement; idPrefix?: string }) {
  const { t } = useTranslation();
  return (
    <article className="legal agreement-doc__clauses" aria-labelledby={`${idPrefix}-clauses`}>
      <h2 id={`${idPrefix}-clauses`} className="agreement-doc__clauses-heading">
        {t('agreementDoc.clauses')}
      </h2>
      <ol className="clauses">
        {agreement.clauses.map((clause, index) => (
          <li key={`${index}-${clause.heading}`}>
            <h3>{clause.heading}</h3>
            <p className={LONG_VALUE}>
              <LongText text={clause.text} />
            </p>
          </li>
        ))}
      </ol>
    </article>
  );
}
