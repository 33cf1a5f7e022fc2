import { Button, Checkbox, Dialog, Toast } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useDeleteAccount, useDeletionCheck } from '../../api/account';
import type { DeletionCheck } from '../../api/types';
import { sessionStorageOrNull } from '../../boot';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useErrorToast } from '../../ui/use-error-toast';
import { forgetAllKept } from '../../api/idempotency-key';
import { forgetAllDrafts } from '../certification/step-draft';

/**
 * Deleting the account (PRODUCT.md §5, self-service deletion with the retention period explained): what is deleted,
 * what the law requires to be kept and for how long, then the server's word on whether it can be done now.
 */
export function DeleteAccountPage() {
  const { t } = useTranslation();
  const market = useMarket();
  const check = useDeletionCheck();
  return (
    <Screen title={t('deleteAccount.title')} backTo="/me">
      <div className="account-delete">
        <section className="card" aria-labelledby="delete-intro">
          <p id="delete-intro">{t('deleteAccount.intro')}</p>
          <h2 className="kfs__heading">{t('deleteAccount.deletedHeading')}</h2>
          <ul className="account-delete__list">
            <li>{t('deleteAccount.deleted1')}</li>
            <li>{t('deleteAccount.deleted2')}</li>
            <li>{t('deleteAccount.deleted3')}</li>
          </ul>
          <h2 className="kfs__heading">{t('deleteAccount.keptHeading')}</h2>
          <p>{t(market.id === 'in' ? 'deleteAccount.keptIN' : 'deleteAccount.keptID')}</p>
          <p className="kfs__note">{t('deleteAccount.exportHint')}</p>
        </section>
        {check.isPending ? (
          <LoadingState />
        ) : check.isError ? (
          <StateNotice kind="error" title={t('deleteAccount.checkFailed')} text={errorText(check.error, t)} onRetry={() => void check.refetch()} />
        ) : check.data.allowed ? (
          <DeleteForm />
        ) : (
          <Blocked check={check.data} />
        )}
      </div>
    </Screen>
  );
}

function Blocked({ check }: { check: DeletionCheck }) {
  const { t } = useTranslation();
  const market = useMarket();
  const orderNo = check.orderNo ?? '';
  const text =
    check.blocker === 'money_outstanding'
      ? t('deleteAccount.owed', { orderNo, amount: formatMoney(check.outstanding, market) })
      : check.blocker === 'payment_unsettled'
        ? t('deleteAccount.paymentUnsettled', { orderNo })
        : t('deleteAccount.openApplication', { orderNo });
  return (
    <StateNotice
      kind="empty"
      title={t('deleteAccount.blockedTitle')}
      text={text}
      actions={
        orderNo && (
          <Link className="list-link" to={`/orders/${encodeURIComponent(orderNo)}`}>
            {t('deleteAccount.toLoan')}
          </Link>
        )
      }
    />
  );
}

function DeleteForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [understood, setUnderstood] = useState(false);
  const remove = useDeleteAccount();
  const showError = useErrorToast();

  const [asking, setAsking] = useState(false);

  const onDelete = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        forgetAllDrafts(sessionStorageOrNull());
        // And what the tab kept of the applications and payments of the account that is no more.
        forgetAllKept(sessionStorageOrNull());
        Toast.show({ content: t('deleteAccount.done'), duration: 3000 });
        void navigate('/login', { replace: true });
      },
      onError: (error) => showError(error),
    });

  return (
    <section className="card account-delete__form">
      <Checkbox checked={understood} onChange={setUnderstood}>
        {t('deleteAccount.confirmLabel')}
      </Checkbox>
      <Button
        block
        color="danger"
        size="large"
        disabled={!understood}
        loading={remove.isPending}
        loadingText={t('deleteAccount.deleting')}
        onClick={() => setAsking(true)}
      >
        {t('deleteAccount.delete')}
      </Button>
      {/* Mounted only while asking, inside the app's providers so the kit speaks the market's language. */}
      {asking && (
        <Dialog
          visible
          title={t('deleteAccount.confirmTitle')}
          content={t('deleteAccount.confirmText')}
          closeOnMaskClick
          onClose={() => setAsking(false)}
          actions={[
            [
              { key: 'keep', text: t('deleteAccount.cancel'), onClick: () => setAsking(false) },
              {
                key: 'delete',
                text: t('deleteAccount.confirmOk'),
                danger: true,
                bold: true,
                onClick: () => {
                  setAsking(false);
                  onDelete();
                },
              },
            ],
          ]}
        />
      )}
    </section>
  );
}
