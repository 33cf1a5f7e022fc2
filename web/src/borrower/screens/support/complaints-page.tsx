import { Button, List, Tag } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { useComplaints } from '../../api/support';
import type { ComplaintSummary } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDay } from '../orders/format';
import './support.css';

export function StatusTag({ complaint }: { complaint: Pick<ComplaintSummary, 'status' | 'overdue'> }) {
  const { t } = useTranslation();
  const color = complaint.status === 'answered' ? 'success' : complaint.status === 'closed' ? 'default' : 'primary';
  return (
    <span className="complaint__tags">
      <Tag color={color}>{t(`complaints.status.${complaint.status}`)}</Tag>
      {complaint.overdue && <Tag color="danger">{t('complaints.overdue')}</Tag>}
    </span>
  );
}

/** The borrower's complaints, newest first, and the way to file one. */
export function ComplaintsPage() {
  const { t } = useTranslation();
  const market = useMarket();
  const list = useComplaints();
  const newButton = (
    <Link to="/complaints/new">
      <Button block color="primary" size="large">
        {t('complaints.new')}
      </Button>
    </Link>
  );
  return (
    <Screen title={t('complaints.title')} backTo="/me">
      {list.isPending ? (
        <LoadingState />
      ) : list.isError ? (
        <StateNotice kind="error" title={t('complaints.loadFailed')} text={errorText(list.error, t)} onRetry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <StateNotice kind="empty" title={t('complaints.empty')} text={t('complaints.emptyText')} actions={newButton} />
      ) : (
        <div className="support">
          <List mode="card">
            {list.data.map((c) => (
              <List.Item key={c.ticketNo} description={`${c.categoryLabel} · ${formatDay(c.createdAt, market)}`} extra={<StatusTag complaint={c} />}>
                <Link className="list-link" to={`/complaints/${encodeURIComponent(c.ticketNo)}`}>
                  {c.ticketNo}
                </Link>
              </List.Item>
            ))}
          </List>
          <div className="support__actions">{newButton}</div>
        </div>
      )}
    </Screen>
  );
}
