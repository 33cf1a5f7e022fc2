import { useTranslation } from 'react-i18next';
import type { OrderStatus } from '../../api/orders';

const KNOWN: readonly string[] = ['pending_review', 'approved', 'rejected', 'cancelled', 'disbursed', 'overdue', 'repaid', 'exited_in_cooling_off'];

/** A status in words; a state this build does not know yet still shows, as "in progress". */
export function useStatusLabel(): (status: OrderStatus) => string {
  const { t } = useTranslation();
  return (status) => t(`orders.status.${KNOWN.includes(status) ? status : 'unknown'}`);
}

/** The order's status as a coloured badge, in words (the colour only repeats them). */
export function StatusBadge({ status }: { status: OrderStatus }) {
  const label = useStatusLabel();
  return <span className={`status-badge status-badge--${KNOWN.includes(status) ? status : 'unknown'}`}>{label(status)}</span>;
}
