import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useClaim } from '../api/applications';
import type { ConsoleOrder, Duplicate, PriorOrder } from '../api/types';
import { useOperator } from '../operator-context';
import { dateTime, marketName, money, time } from '../format';
import { consolePaths } from '../paths';

/**
 * The borrower at a glance (issue 18, item 5): age, income a month and a year against the market's minimum, and the
 * certification's codes in words.
 */
export function PictureSection({ view }: { view: ConsoleOrder }) {
  const { t } = useTranslation();
  const { picture } = view;
  const labels = picture.labels as Record<string, string>;
  const rows: [string, string][] = [];
  if (picture.age !== null) rows.push([t('picture.age'), t('picture.years', { count: picture.age })]);
  if (picture.income) {
    const { currency, monthly, yearly, minimumMonthly, minimumYearly } = picture.income;
    rows.push([t('picture.incomeMonthly'), money(monthly, currency)]);
    rows.push([t('picture.incomeYearly'), money(yearly, currency)]);
    rows.push([t('picture.minimum'), t('picture.incomeBoth', { monthly: money(minimumMonthly, currency), yearly: money(minimumYearly, currency) })]);
  }
  for (const key of ['employmentType', 'gender', 'education', 'maritalStatus', 'residenceType', 'city', 'region', 'bank']) {
    const label = labels[key];
    if (label) rows.push([t(`picture.label.${key}`), label]);
  }
  const belowMinimum = picture.income !== null && picture.income.monthly < picture.income.minimumMonthly;
  return (
    <section className="panel" aria-labelledby="picture-title">
      <h2 id="picture-title">{t('picture.title')}</h2>
      {rows.length === 0 ? (
        <p className="empty">{t('picture.none')}</p>
      ) : (
        <dl className="facts">
          {rows.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
      {belowMinimum && <p className="field-error">{t('picture.belowMinimum')}</p>}
    </section>
  );
}

/** The borrower's values found on other borrowers: shown first, as a warning, with a link to each other order. */
export function Duplicates({ duplicates }: { duplicates: Duplicate[] }) {
  const { t } = useTranslation();
  if (duplicates.length === 0) return null;
  return (
    <section className="notice notice--warn duplicates" aria-labelledby="duplicates-title" role="region">
      <h2 id="duplicates-title">{t('duplicates.title', { count: duplicates.length })}</h2>
      <ul>
        {duplicates.map((d) => (
          <li key={`${d.field}-${d.otherBorrowerId}-${d.otherField}`}>
            {t('duplicates.line', {
              field: t(`duplicates.field.${d.field}`, { defaultValue: d.field }),
              otherField: t(`duplicates.field.${d.otherField}`, { defaultValue: d.otherField }),
              market: marketName(d.otherMarket, t),
            })}{' '}
            {d.otherOrderNo ? (
              <Link to={consolePaths.order(d.otherOrderNo)}>{t('duplicates.open', { orderNo: d.otherOrderNo })}</Link>
            ) : (
              <span className="muted">{t('duplicates.noOrder', { borrowerId: d.otherBorrowerId })}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The borrower's other applications and loans, newest first, with their outcomes. */
export function History({ history }: { history: PriorOrder[] }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="prior-orders-title">
      <h2 id="prior-orders-title">{t('history.title')}</h2>
      {history.length === 0 ? (
        <p className="muted">{t('history.none')}</p>
      ) : (
        <table className="table table--compact">
          <thead>
            <tr>
              <th scope="col">{t('history.order')}</th>
              <th scope="col">{t('history.date')}</th>
              <th scope="col">{t('history.product')}</th>
              <th scope="col" className="num">
                {t('history.amount')}
              </th>
              <th scope="col">{t('history.status')}</th>
              <th scope="col" className="num">
                {t('history.daysLate')}
              </th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.orderNo}>
                <td>
                  <Link to={consolePaths.order(h.orderNo)}>{h.orderNo}</Link>
                </td>
                <td>{dateTime(h.createdAt)}</td>
                <td>{h.productName}</td>
                <td className="num">{money(h.amount, h.currency)}</td>
                <td>
                  <span className={`status status--${h.status}`}>{t(`status.${h.status}`)}</span>
                </td>
                <td className="num">{h.daysLate > 0 ? t('history.days', { count: h.daysLate }) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Who works on this application: claim it (30 minutes, renewed by claiming again) so that no other reviewer does,
 * release it, or, as an admin, release another's claim.
 */
export function ClaimPanel({ view }: { view: ConsoleOrder }) {
  const { t } = useTranslation();
  const operator = useOperator();
  const claim = useClaim(view.order.orderNo);
  const held = view.claim;
  const mine = held !== null && held.operatorId === operator.id;
  const isReviewer = operator.roles.includes('reviewer');
  const isAdmin = operator.roles.includes('admin');
  return (
    <section className="panel" aria-labelledby="claim-title">
      <h2 id="claim-title">{t('claim.title')}</h2>
      <p role="status">
        {held === null
          ? t('claim.free')
          : mine
            ? t('claim.mine', { until: time(held.until) })
            : t('claim.other', { username: held.username, until: time(held.until) })}
      </p>
      {claim.isError && (
        <p role="alert" className="notice notice--error">
          {errorText(claim.error, t)}
        </p>
      )}
      <div className="actions">
        {isReviewer && (held === null || mine) && (
          <button type="button" className="button" onClick={() => claim.mutate('claim')} disabled={claim.isPending}>
            {mine ? t('claim.renew') : t('claim.claim')}
          </button>
        )}
        {held !== null && (mine || isAdmin) && (
          <button type="button" className="button button--quiet" onClick={() => claim.mutate('release')} disabled={claim.isPending}>
            {mine ? t('claim.release') : t('claim.releaseOther', { username: held.username })}
          </button>
        )}
      </div>
    </section>
  );
}
