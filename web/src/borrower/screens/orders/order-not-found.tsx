import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { StateNotice } from '../../ui/state-notice';

/** Another borrower's loan and a mistyped number look the same: not found. */
export function OrderNotFound() {
  const { t } = useTranslation();
  return (
    <StateNotice
      kind="empty"
      title={t('order.notFound')}
      text={t('order.notFoundText')}
      actions={
        <Link className="state__link" to="/orders">
          {t('order.toOrders')}
        </Link>
      }
    />
  );
}
