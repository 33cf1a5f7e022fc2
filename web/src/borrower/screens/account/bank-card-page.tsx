import { Button, List } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useCertificationStep } from '../../api/certification';
import { useEnums } from '../../api/reference-data';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';

/** The change flow's route (issue 8: a verification code, refused while a loan is open). */
export const BANK_CHANGE_ROUTE = '/certification/bank';

/** The payout account on file, masked; read-only here, with the way to the change flow. */
export function BankCardPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const bank = useCertificationStep('bank');
  const enums = useEnums();
  const data = bank.data?.data ?? null;
  const lockedBy = bank.data?.bankLockedBy ?? null;
  const bankName = data ? (enums.data?.banks.find((b) => b.code === data.bankCode)?.label ?? data.bankCode) : '';
  return (
    <Screen title={t('bankCard.title')} backTo="/me">
      {bank.isPending ? (
        <LoadingState />
      ) : bank.isError ? (
        <StateNotice kind="error" title={t('bankCard.loadFailed')} text={errorText(bank.error, t)} onRetry={() => void bank.refetch()} />
      ) : !data ? (
        <StateNotice
          kind="empty"
          title={t('bankCard.none')}
          text={t('bankCard.noneText')}
          actions={
            <Button color="primary" onClick={() => void navigate(BANK_CHANGE_ROUTE)}>
              {t('bankCard.add')}
            </Button>
          }
        />
      ) : (
        <div className="bank-card">
          <p className="kfs__note">{t('bankCard.intro')}</p>
          <List mode="card">
            <List.Item extra={<span className="me__value">{bankName}</span>}>{t('bankCard.bank')}</List.Item>
            <List.Item extra={<span className="me__value bank-card__number">{data.accountNumber}</span>}>{t('bankCard.account')}</List.Item>
            {data.ifsc && <List.Item extra={<span className="me__value">{data.ifsc}</span>}>{t('bankCard.ifsc')}</List.Item>}
          </List>
          <p className="kfs__note">{t('bankCard.holderNote')}</p>
          <Button
            block
            color="primary"
            fill="outline"
            size="large"
            disabled={lockedBy !== null}
            aria-describedby={lockedBy !== null ? 'bank-card-locked' : undefined}
            onClick={() => void navigate(BANK_CHANGE_ROUTE)}
          >
            {t('bankCard.change')}
          </Button>
          {lockedBy !== null ? (
            // The server's rule (no change while a loan is open) decides; the page only says so before anything is typed.
            <p className="bank-card__locked" id="bank-card-locked" role="note">
              {t('bankCard.locked', { orderNo: lockedBy })}{' '}
              <Link to={`/orders/${encodeURIComponent(lockedBy)}`}>{t('bankCard.lockedLink')}</Link>
            </p>
          ) : (
            <p className="kfs__note">{t('bankCard.changeNote')}</p>
          )}
        </div>
      )}
    </Screen>
  );
}
