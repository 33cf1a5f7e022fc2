import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { IneligibleReason } from '../../api/home';

const KNOWN: readonly string[] = ['certification_incomplete', 'open_order', 'income_below_minimum'];

/**
 * Why the borrower may not apply now, as sentences, each with the way forward. `openOrderNo` makes the
 * open-order reason link to that loan rather than to the list.
 */
export function IneligibleReasons({ reasons, openOrderNo }: { reasons: IneligibleReason[]; openOrderNo?: string }) {
  const { t } = useTranslation();
  const linkOf = (reason: IneligibleReason): { to: string; label: string } | null => {
    switch (reason) {
      case 'certification_incomplete':
        return { to: '/certification', label: t('home.reasons.certification_incomplete.action') };
      case 'open_order':
        return { to: openOrderNo ? `/orders/${encodeURIComponent(openOrderNo)}` : '/orders', label: t('home.reasons.open_order.action') };
      case 'income_below_minimum':
        return { to: '/certification', label: t('home.reasons.income_below_minimum.action') };
      default:
        return null;
    }
  };
  return (
    <ul className="reasons">
      {reasons.map((reason) => {
        const link = linkOf(reason);
        return (
          <li key={reason} className="reasons__item">
            <p className="reasons__text">{t(`home.reasons.${KNOWN.includes(reason) ? reason : 'other'}.text`)}</p>
            {link && (
              <Link className="reasons__link" to={link.to}>
                {link.label}
              </Link>
            )}
          </li>
        );
      })}
    </ul>
  );
}
