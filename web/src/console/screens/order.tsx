import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams } from 'react-router';
import { useOrder } from '../api/order';
import type { CertificationStep, ConsoleOrder, Decision, KeyFactStatement } from '../api/types';
import { useOperator } from '../operator-context';
import { dateTime, day, marketName, money, phone, term } from '../format';
import { queueBackPath } from '../paths';
import { DECIDE_ROLES, ORDER_ROLES, hasAnyRole } from '../sections';
import { ContactHistorySection } from './collections';
import { DecisionPanel } from './decision-panel';
import { BeneficiaryPanel } from './beneficiary';
import { LoanSections } from './loan-sections';
import { ClaimPanel, Duplicates, History, PictureSection } from './borrower-picture';
import { LoadFailed, Loading, NotAllowed, ScreenAlert, type ScreenNotice } from './states';

/** Everything about one order on one page: borrower, certification, KFS, timeline, and the reviewer's decision. */
export function OrderScreen() {
  const { t } = useTranslation();
  const operator = useOperator();
  const { orderNo = '' } = useParams();
  // The queue's page and market the operator opened this order from, if they came from there.
  const cameFrom = useLocation().state as unknown;
  const order = useOrder(orderNo);
  const [decided, setDecided] = useState<Decision | null>(null);
  // A decision refused because the order was decided meanwhile: said here, as the decision panel goes once it is read.
  const [refused, setRefused] = useState<ScreenNotice | null>(null);

  if (!hasAnyRole(operator, ORDER_ROLES)) return <NotAllowed />;
  if (order.isPending) return <Loading label={t('order.loading')} />;
  if (order.isError) {
    return (
      <section>
        <h1>{t('order.title', { orderNo })}</h1>
        <LoadFailed error={order.error} onRetry={order.error.status === 404 ? undefined : () => void order.refetch()} />
      </section>
    );
  }
  const view = order.data;
  const { order: detail } = view;
  const mayDecide = detail.status === 'pending_review' && hasAnyRole(operator, DECIDE_ROLES);
  const mayClaim = detail.status === 'pending_review' && hasAnyRole(operator, ['reviewer', 'admin']);

  return (
    <article className="order">
      <div className="page-head">
        <h1>
          {t('order.title', { orderNo: detail.orderNo })}{' '}
          <span className={`status status--${detail.status}`}>{t(`status.${detail.status}`)}</span>
        </h1>
        {hasAnyRole(operator, ['reviewer', 'support']) && (
          <Link to={queueBackPath(cameFrom, detail.kfs.market)}>{t('order.backToQueue')}</Link>
        )}
      </div>
      {decided && (
        <p role="status" className="notice notice--success">
          {t(`order.decided.${decided.status === 'approved' ? 'approved' : 'rejected'}`, { orderNo: decided.orderNo })}
        </p>
      )}
      <ScreenAlert notice={refused} />
      <Duplicates duplicates={view.duplicates} />
      <div className="order-grid">
        <div>
          <Summary view={view} />
          <PictureSection view={view} />
        </div>
        {(mayDecide || mayClaim) && (
          <div>
            {mayClaim && <ClaimPanel view={view} />}
            {mayDecide && (
              <DecisionPanel
                order={view}
                onDecided={(decision) => {
                  setRefused(null);
                  setDecided(decision);
                }}
                onRefused={(text) => {
                  setDecided(null);
                  setRefused({ text });
                }}
              />
            )}
          </div>
        )}
      </div>
      {view.beneficiary && <BeneficiaryPanel beneficiary={view.beneficiary} />}
      <History history={view.history} />
      {view.loan && <LoanSections loan={view.loan} currency={detail.currency} />}
      {view.loan && <ContactHistorySection orderNo={detail.orderNo} currency={detail.currency} />}
      <Certification view={view} />
      <Kfs kfs={detail.kfs} />
      <Timeline view={view} />
    </article>
  );
}

function Summary({ view }: { view: ConsoleOrder }) {
  const { t } = useTranslation();
  const { order } = view;
  const rows: [string, string][] = [
    [t('order.borrower'), view.phoneMasked],
    [t('order.borrowerId'), view.borrowerId],
    [t('order.market'), marketName(order.kfs.market, t)],
    [t('order.product'), order.productName],
    [t('order.amount'), money(order.amount, order.currency)],
    [t('order.term'), term(order.termCode, t)],
    [t('order.apr'), order.aprDisplay],
    [t('order.netDisbursed'), money(order.netDisbursed, order.currency)],
    [t('order.totalRepayable'), money(order.totalRepayable, order.currency)],
    [t('order.confirmedAt'), dateTime(order.acceptedAt)],
  ];
  if (view.reviewReason) rows.push([t('order.reviewReason'), view.reviewReason]);
  if (view.reviewNote) rows.push([t('order.reviewNote'), view.reviewNote]);
  return (
    <section className="panel" aria-labelledby="summary-title">
      <h2 id="summary-title">{t('order.summary')}</h2>
      <dl className="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Fields shown as money (minor units) rather than as typed. */
const MONEY_FIELDS = new Set(['income']);
/** Fields holding a code, shown with the label the order view gives it (`picture.labels`). */
const LABELLED_FIELDS: Record<string, string> = {
  gender: 'gender',
  education: 'education',
  maritalStatus: 'maritalStatus',
  residenceType: 'residenceType',
  regionCode: 'region',
  cityCode: 'city',
  employmentType: 'employmentType',
  contact1Relation: 'contact1Relation',
  contact2Relation: 'contact2Relation',
  bankCode: 'bank',
};
const PHONE_FIELDS = new Set(['contact1Phone', 'contact2Phone']);

function Certification({ view }: { view: ConsoleOrder }) {
  const { t } = useTranslation();
  const { certification: steps, unmasked, picture } = view;
  const currency = view.order.currency;
  const labels = picture.labels as Record<string, string>;
  const show = (field: string, value: unknown): string => {
    if (typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
    if (field === 'income' && picture.income) {
      return t('picture.incomeBoth', { monthly: money(picture.income.monthly, currency), yearly: money(picture.income.yearly, currency) });
    }
    if (typeof value === 'number' && MONEY_FIELDS.has(field)) return money(value, currency);
    if (value === null || value === undefined || value === '') return '—';
    const labelKey = LABELLED_FIELDS[field];
    if (labelKey && labels[labelKey]) return `${labels[labelKey]} (${String(value)})`;
    if (PHONE_FIELDS.has(field)) return phone(String(value));
    if (field === 'dateOfBirth' && picture.age !== null) return `${day(String(value))} · ${t('picture.years', { count: picture.age })}`;
    return String(value);
  };
  return (
    <section className="panel" aria-labelledby="cert-title">
      <h2 id="cert-title">{t('cert.title')}</h2>
      <p className="muted">{unmasked ? t('cert.unmasked') : t('cert.masked')}</p>
      {steps.length === 0 ? (
        <p className="empty">{t('cert.none')}</p>
      ) : (
        <div className="cert-steps">
          {steps.map((step: CertificationStep) => (
            <section key={step.step} aria-labelledby={`cert-${step.step}`}>
              <h3 id={`cert-${step.step}`}>{t(`cert.step.${step.step}`)}</h3>
              <dl className="facts facts--compact">
                {Object.entries(step.data as unknown as Record<string, unknown>).map(([field, value]) => (
                  <div key={field}>
                    <dt>{t(`cert.field.${field}`, { defaultValue: field })}</dt>
                    <dd>{show(field, value)}</dd>
                  </div>
                ))}
              </dl>
              <p className="muted">{t('cert.completedAt', { at: dateTime(step.completedAt) })}</p>
            </section>
          ))}
        </div>
      )}
    </section>
  );
}

function Kfs({ kfs }: { kfs: KeyFactStatement }) {
  const { t } = useTranslation();
  const m = (minor: number) => money(minor, kfs.currency);
  const rows: [string, string][] = [
    [t('kfs.sanctioned'), m(kfs.sanctionedAmount)],
    [t('kfs.fees'), m(kfs.totalFees) + (kfs.feesDeductedAtDisbursal ? ` ${t('kfs.deducted')}` : '')],
    [t('kfs.netDisbursed'), m(kfs.netDisbursed)],
    [t('kfs.totalInterest'), m(kfs.totalInterest)],
    [t('kfs.totalRepayable'), m(kfs.totalRepayable)],
    [t('kfs.apr'), kfs.aprDisplay],
    [t('kfs.interest'), t('kfs.interestRate', { rate: kfs.interest.rate, per: t(`kfs.per.${kfs.interest.per}`, { defaultValue: kfs.interest.per }), method: kfs.interest.method })],
    [t('kfs.lateCharge'), lateCharge(kfs, t)],
    [t('kfs.coolingOff'), t('kfs.days', { count: kfs.coolingOffDays })],
    [t('kfs.disbursalDate'), day(kfs.disbursalDate)],
    [t('kfs.lender'), kfs.lender.licence ? `${kfs.lender.name} (${kfs.lender.licence})` : kfs.lender.name],
  ];
  return (
    <section className="panel" aria-labelledby="kfs-title">
      <h2 id="kfs-title">{t('kfs.title')}</h2>
      <div className="kfs">
        <dl className="facts">
          {rows.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        <div>
          {kfs.fees.length > 0 && (
            <table className="table table--compact">
              <caption>{t('kfs.feesCaption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('kfs.fee')}</th>
                  <th scope="col" className="num">{t('kfs.feeAmount')}</th>
                  <th scope="col" className="num">{t('kfs.tax')}</th>
                  <th scope="col" className="num">{t('kfs.total')}</th>
                </tr>
              </thead>
              <tbody>
                {kfs.fees.map((fee) => (
                  <tr key={fee.name}>
                    <td>{fee.name}</td>
                    <td className="num">{m(fee.amount)}</td>
                    <td className="num">{m(fee.tax)}</td>
                    <td className="num">{m(fee.total)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <table className="table table--compact">
            <caption>{t('kfs.scheduleCaption')}</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">{t('kfs.due')}</th>
                <th scope="col" className="num">{t('kfs.principal')}</th>
                <th scope="col" className="num">{t('kfs.interestPart')}</th>
                <th scope="col" className="num">{t('kfs.feesPart')}</th>
                <th scope="col" className="num">{t('kfs.installment')}</th>
              </tr>
            </thead>
            <tbody>
              {kfs.installments.map((row) => (
                <tr key={row.number}>
                  <td>{row.number}</td>
                  <td>{day(row.dueDate)}</td>
                  <td className="num">{m(row.principal)}</td>
                  <td className="num">{m(row.interest)}</td>
                  <td className="num">{m(row.fees)}</td>
                  <td className="num">{m(row.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

/** The late charge as the KFS states it; a product with no daily part says only the one-off charge. */
function lateCharge(kfs: KeyFactStatement, t: TFunction): string {
  const m = (minor: number) => money(minor, kfs.currency);
  const { flat, perDay, maxDays } = kfs.lateCharge;
  const max = m(kfs.maxLateCharges);
  if (perDay === 0 || maxDays === 0) return t('kfs.lateChargeFlat', { flat: m(flat), max });
  return t('kfs.lateChargeText', { flat: m(flat), perDay: m(perDay), count: maxDays, max });
}

function Timeline({ view }: { view: ConsoleOrder }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="timeline-title">
      <h2 id="timeline-title">{t('timeline.title')}</h2>
      <table className="table table--compact">
        <thead>
          <tr>
            <th scope="col">{t('timeline.at')}</th>
            <th scope="col">{t('timeline.status')}</th>
            <th scope="col">{t('timeline.event')}</th>
            <th scope="col">{t('timeline.actor')}</th>
          </tr>
        </thead>
        <tbody>
          {view.timeline.map((entry, i) => (
            <tr key={`${entry.at}-${i}`}>
              <td>{dateTime(entry.at)}</td>
              <td>{t(`status.${entry.status}`)}</td>
              <td>{entry.event ?? t('timeline.opened')}</td>
              <td>{t(`actor.${entry.actor}`, { defaultValue: entry.actor })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
