import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Beneficiary } from '../api/types';

/** A button that copies one value to the clipboard and says so (for the bank portal's fields). */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  // "Copied" for 2 s after a copy (another copy meanwhile does not extend it); the timer goes with the button, so a
  // screen left meanwhile sets nothing.
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2_000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    void navigator.clipboard?.writeText(value).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <button type="button" className="button button--quiet button--small copy" onClick={copy} aria-label={t('beneficiary.copy', { what: label })}>
      {copied ? t('beneficiary.copied') : t('beneficiary.copyShort')}
    </button>
  );
}

/**
 * Where the loan is paid to, unmasked for finance (the server audited the view): name as on the ID, bank name, the
 * account number in full and the IFSC (India) or bank code (Indonesia), each with a copy button.
 */
export function BeneficiaryFacts({ beneficiary, compact = false }: { beneficiary: Beneficiary; compact?: boolean }) {
  const { t } = useTranslation();
  // [label, value, copyable, a number read digit by digit]
  const rows: [string, string, boolean, boolean][] = [
    [t('beneficiary.name'), beneficiary.name, true, false],
    [t('beneficiary.bank'), beneficiary.bankName, false, false],
    [t('beneficiary.account'), beneficiary.accountNumber, true, true],
    beneficiary.ifsc ? [t('beneficiary.ifsc'), beneficiary.ifsc, true, true] : [t('beneficiary.bankCode'), beneficiary.bankCode, true, true],
  ];
  return (
    <dl className={compact ? 'facts facts--compact beneficiary' : 'facts beneficiary'}>
      {rows.map(([label, value, copyable, digits]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            <span className={digits ? 'mono' : undefined}>{value}</span> {copyable && <CopyButton value={value} label={label} />}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The order view's beneficiary panel (finance). */
export function BeneficiaryPanel({ beneficiary }: { beneficiary: Beneficiary }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="beneficiary-title">
      <h2 id="beneficiary-title">{t('beneficiary.title')}</h2>
      <p className="muted">{t('beneficiary.audited')}</p>
      <BeneficiaryFacts beneficiary={beneficiary} />
    </section>
  );
}
