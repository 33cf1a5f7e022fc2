import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Market } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import type { Payment } from '../../api/payment';
import { useMoney } from '../loan-money';
import './money.css';

/** Only the digits of an account number: what a bank app's field takes. */
export function digitsOnly(value: string): string {
  return value.replace(/\D/g, '');
}

/** Digits in groups of four, as a 16-digit virtual account is read aloud and typed: "8808 4678 3085 7819". */
export function groupedDigits(value: string): string {
  return digitsOnly(value).replace(/(\d{4})(?=\d)/g, '$1 ');
}

const ZONES: Record<Market['id'], { zone: string; label: string }> = {
  in: { zone: 'Asia/Kolkata', label: 'IST' },
  id: { zone: 'Asia/Jakarta', label: 'WIB' },
};

/** An instant in the market's own time, with its zone's name: "28 Nov 2026, 02.20 WIB". */
export function formatMarketTime(epochMs: number, market: Market): string {
  const { zone, label } = ZONES[market.id];
  const text = new Intl.DateTimeFormat(market.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(new Date(epochMs));
  return `${text} ${label}`;
}

const CHANNELS = ['mobile', 'atm', 'internet'] as const;

/**
 * Under a virtual account: until when it takes payment (its expiry, from the server), and how to pay it step by step
 * at its bank (m-BCA, ATM, KlikBCA for BCA; the same three channels in general words for another bank).
 */
export function VirtualAccountHelp({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const how = payment.instructions;
  const bank = how.bankCode ?? '';
  const number = groupedDigits(how.virtualAccount ?? '');
  const expiresAt = how.expiresAt ?? null;
  // Read once when shown: a page left open past the expiry says so at its next load.
  const [now] = useState(() => Date.now());
  const expired = expiresAt !== null && expiresAt <= now;
  const family = bank.toUpperCase() === 'BCA' ? 'bca' : 'other';
  const values = { bank, number, payee: how.payeeName, amount: money(payment.amount) };
  return (
    <>
      {expiresAt !== null && (
        <p className="va-expiry" role={expired ? 'alert' : undefined}>
          {expired
            ? t('money.va.expired', { time: formatMarketTime(expiresAt, market) })
            : t('money.va.payBefore', { time: formatMarketTime(expiresAt, market) })}
        </p>
      )}
      <p className="va-note">{t('money.va.exact', { amount: money(payment.amount) })}</p>
      {!expired && (
        <div className="va-steps">
          <h3 className="kfs__subheading">{t('money.va.stepsTitle', { bank })}</h3>
          {CHANNELS.map((channel) => {
            const steps = t(`money.va.${family}.${channel}.steps`, { ...values, returnObjects: true }) as unknown as string[];
            return (
              <details key={channel}>
                <summary>{t(`money.va.${family}.${channel}.title`, values)}</summary>
                <ol>
                  {steps.map((step) => (
                    <li key={step}>{step}</li>
                  ))}
                </ol>
              </details>
            );
          })}
        </div>
      )}
    </>
  );
}
