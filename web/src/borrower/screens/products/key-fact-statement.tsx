import { useTranslation } from 'react-i18next';
import { useMarket } from '@/shared/market/market-context';
import { formatApr, formatRate } from '@/shared/money/format-percent';
import type { KeyFactStatement } from '../../api/types';
import { breakable, LONG_VALUE } from '../../ui/long-value';
import { LoanMoneyProvider, useMoney } from '../loan-money';
import { formatDate } from './format';

function Row({ label, value, className }: { label: string; value: string; className?: string }) {
  return (
    <div className={className ? `figures__row ${className}` : 'figures__row'}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/**
 * A Key Fact Statement in full (PRODUCT.md §3), APR first: the confirm screen shows it before acceptance,
 * a loan's agreement carries the accepted one. `scheduleNote` says which day the due dates count from. Its amounts
 * have the loan's one precision, as on every other screen of it.
 */
export function KeyFactStatementView({ kfs, scheduleNote }: { kfs: KeyFactStatement; scheduleNote?: string }) {
  return (
    <LoanMoneyProvider kfs={kfs}>
      <Statement kfs={kfs} scheduleNote={scheduleNote} />
    </LoanMoneyProvider>
  );
}

function Statement({ kfs, scheduleNote }: { kfs: KeyFactStatement; scheduleNote?: string }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const officer = kfs.lender.grievanceOfficer;
  const { flat, perDay, maxDays } = kfs.lateCharge;
  const lateParts: string[] = [];
  if (flat > 0) lateParts.push(t('kfs.lateFlat', { amount: money(flat) }));
  if (perDay > 0) lateParts.push(t('kfs.latePerDay', { amount: money(perDay), count: maxDays }));

  return (
    <div className="kfs">
      <section className="card kfs__apr" aria-labelledby="kfs-apr">
        <h2 className="kfs__product">
          {kfs.productName}
        </h2>
        <p className="kfs__apr-value" id="kfs-apr">
          <span>{t('kfs.apr')}</span> <strong>{formatApr(kfs.apr, market)}</strong>
        </p>
        <p className="kfs__note">{t('kfs.aprNote')}</p>
      </section>

      <section className="card" aria-labelledby="kfs-amounts">
        <h2 className="kfs__heading" id="kfs-amounts">
          {t('kfs.amounts')}
        </h2>
        <dl className="figures">
          <Row label={t('kfs.sanctioned')} value={money(kfs.sanctionedAmount)} />
          {kfs.fees.map((fee) => (
            <div className="figures__row figures__row--fee" key={fee.name}>
              <dt>
                {fee.name}
                {/* The tax line only where there is a tax: Indonesian fees carry none, and "+ tax Rp 0" reads oddly. */}
                {fee.tax !== 0 && (
                  <span className="figures__sub">
                    {kfs.market === 'IN'
                      ? t('kfs.feeWithGst', { amount: money(fee.amount), tax: money(fee.tax) })
                      : t('kfs.feeWithTax', { amount: money(fee.amount), tax: money(fee.tax) })}
                  </span>
                )}
              </dt>
              <dd>{money(fee.total)}</dd>
            </div>
          ))}
          <Row label={kfs.feesDeductedAtDisbursal ? t('kfs.totalFeesDeducted') : t('kfs.totalFees')} value={money(kfs.totalFees)} />
          <Row label={t('kfs.netDisbursed')} value={money(kfs.netDisbursed)} className="figures__row--strong" />
          <Row label={t('kfs.interest')} value={t(`kfs.interestRate.${kfs.interest.per === 'year' ? 'year' : 'day'}`, { rate: formatRate(kfs.interest.rate, market), method: t(`kfs.method.${kfs.interest.method === 'reducing' ? 'reducing' : 'flat'}`) })} className="figures__row--text" />
          <Row label={t('kfs.totalInterest')} value={money(kfs.totalInterest)} />
          <Row label={t('kfs.totalRepayable')} value={money(kfs.totalRepayable)} className="figures__row--total" />
        </dl>
      </section>

      {kfs.dailyCost && <DailyCostView kfs={kfs} dailyCost={kfs.dailyCost} />}

      <section className="card" aria-labelledby="kfs-schedule">
        <h2 className="kfs__heading" id="kfs-schedule">
          {t('kfs.schedule')}
        </h2>
        <p className="kfs__note">{scheduleNote ?? t('kfs.disbursal', { date: formatDate(kfs.disbursalDate, market) })}</p>
        <InstallmentsTable installments={kfs.installments} />
      </section>

      <section className="card" aria-labelledby="kfs-terms">
        <h2 className="kfs__heading" id="kfs-terms">
          {t('kfs.conditions')}
        </h2>
        <h3 className="kfs__subheading">{t('kfs.late')}</h3>
        {/* The cap and the no-interest rule only where there is a late charge: "No late charge. … never more than ₹0" reads oddly. */}
        <p>
          {lateParts.length > 0
            ? `${lateParts.join(' ')} ${t('kfs.lateMax', { amount: money(kfs.maxLateCharges) })} ${t('kfs.lateNoInterest')}`
            : t('kfs.lateNone')}
        </p>
        <h3 className="kfs__subheading">{t('kfs.coolingOff')}</h3>
        <p>{t('kfs.coolingOffText', { count: kfs.coolingOffDays })}</p>
        <h3 className="kfs__subheading">{t('kfs.extension')}</h3>
        <p>{extensionText(kfs, t, money, market)}</p>
        {/* Statements sealed before version 3 state no prepayment terms; the KFS shows only what was sealed. */}
        {kfs.prepayment && (
          <>
            <h3 className="kfs__subheading">{t('kfs.prepayment')}</h3>
            <p>{t('kfs.prepaymentText')}</p>
          </>
        )}
      </section>

      <section className="card" aria-labelledby="kfs-lender">
        <h2 className="kfs__heading" id="kfs-lender">
          {t('kfs.lender')}
        </h2>
        <div>
          <p className="kfs__lender">{kfs.lender.name}</p>
          {kfs.lender.licence && <p className="kfs__licence">{kfs.lender.licence}</p>}
        </div>
        <h3 className="kfs__subheading">{t('kfs.grievance')}</h3>
        <address className="kfs__officer">
          {officer.name}
          <br />
          <a className={LONG_VALUE} href={`mailto:${officer.email}`}>
            {breakable(officer.email)}
          </a>
          <br />
          <a href={`tel:${officer.phone.replace(/[^\d+]/g, '')}`}>{officer.phone}</a>
        </address>
      </section>
    </div>
  );
}

/**
 * The extension the statement offers (PRODUCT.md §7): the days, how many times, the fee on this loan with its rule
 * (a share of the loan amount, a fixed part, GST in India), or that there is none. A statement sealed before
 * version 4 carries the rule but not the amount: the rule alone is stated.
 */
function extensionText(
  kfs: KeyFactStatement,
  t: ReturnType<typeof useTranslation>['t'],
  money: (minor: number) => string,
  market: ReturnType<typeof useMarket>,
): string {
  const terms = kfs.extension;
  if (!terms) return t('kfs.extensionNone');
  const rule: string[] = [];
  // A rate's text is zero exactly when it has no non-zero digit (no floating point near money).
  if (/[1-9]/.test(terms.feePercent)) rule.push(t('kfs.extensionRulePercent', { rate: formatRate(terms.feePercent, market) }));
  if (terms.feeFixed !== 0 || rule.length === 0) rule.push(money(terms.feeFixed));
  const fee = kfs.extensionFee;
  let ruleText = rule.join(' + ');
  if (fee && fee.tax !== 0) {
    ruleText = t(kfs.market === 'IN' ? 'kfs.extensionRuleGst' : 'kfs.extensionRuleTax', { rule: ruleText, tax: money(fee.tax) });
  }
  return fee
    ? t('kfs.extensionText', { count: terms.maxExtensions, days: terms.days, fee: money(fee.total), rule: ruleText })
    : t('kfs.extensionTextRule', { count: terms.maxExtensions, days: terms.days, rule: ruleText });
}

type DailyCost = NonNullable<KeyFactStatement['dailyCost']>;

/**
 * Indonesia (OJK): what the loan costs a day, interest and fees together as a share of the principal, beside the
 * daily cap in force for it, and what that cap would allow over the loan's days.
 */
function DailyCostView({ kfs, dailyCost }: { kfs: KeyFactStatement; dailyCost: DailyCost }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  return (
    <section className="card" aria-labelledby="kfs-daily-cost">
      <h2 className="kfs__heading" id="kfs-daily-cost">
        {t('kfs.dailyCost.heading')}
      </h2>
      <dl className="figures">
        <Row
          label={t('kfs.dailyCost.cost')}
          value={t('kfs.dailyCost.costValue', { amount: money(dailyCost.perDay), rate: formatRate(dailyCost.rate, market) })}
          className="figures__row--text"
        />
        <Row
          label={t('kfs.dailyCost.cap')}
          value={t('kfs.dailyCost.capValue', { rate: formatRate(dailyCost.cap, market) })}
          className="figures__row--text"
        />
      </dl>
      <p className="kfs__note">
        {t('kfs.dailyCost.note', {
          count: dailyCost.days,
          cost: money(dailyCost.cost),
          limit: money(dailyCost.limit),
          principal: money(kfs.sanctionedAmount),
        })}
      </p>
    </section>
  );
}

/** Each installment with its due date and amount, and what of it is principal, interest and any fees, at the loan's precision. */
export function InstallmentsTable({ installments }: { installments: KeyFactStatement['installments'] }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  return (
    <table className="schedule">
      <thead>
        <tr>
          <th scope="col">{t('kfs.number')}</th>
          <th scope="col">{t('kfs.dueDate')}</th>
          <th scope="col" className="schedule__amount">
            {t('kfs.installment')}
          </th>
        </tr>
      </thead>
      <tbody>
        {installments.map((installment, index) => (
          <tr key={installment.dueDate + String(index)}>
            <td>{installment.number ?? index + 1}</td>
            <td>{formatDate(installment.dueDate, market)}</td>
            <td className="schedule__amount">
              {money(installment.amount)}
              <span className="figures__sub">
                {/* Fees not deducted at payout come with the first installment: named, so its parts add up to it. */}
                {installment.fees
                  ? t('kfs.splitWithFees', { principal: money(installment.principal), interest: money(installment.interest), fees: money(installment.fees) })
                  : t('kfs.split', { principal: money(installment.principal), interest: money(installment.interest) })}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
