import { Button, Dialog } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useForgetDevice } from '../../api/device';
import { useLocationStatus, useWithdrawLocation } from '../../api/location';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useErrorToast } from '../../ui/use-error-toast';

/**
 * What the borrower agreed to share, and the way to withdraw it as easily as it was given (India's DPDP Act, RBI's
 * digital lending directions, OJK): the coarse location asked on home, and the phone's details the native shell keeps.
 */
export function PermissionsPage() {
  const { t } = useTranslation();
  return (
    <Screen title={t('permissions.title')} backTo="/me">
      <div className="permissions">
        <p className="kfs__note">{t('permissions.intro')}</p>
        <LocationSection />
        <DeviceSection />
      </div>
    </Screen>
  );
}

function LocationSection() {
  const { t } = useTranslation();
  const status = useLocationStatus();
  const withdraw = useWithdrawLocation();
  const showError = useErrorToast();
  const [asking, setAsking] = useState(false);
  const [notice, setNotice] = useState('');

  const onWithdraw = () => {
    if (withdraw.isPending) return;
    setNotice('');
    withdraw.mutate(undefined, {
      onSuccess: () => setNotice(t('permissions.locationDeleted')),
      onError: (error) => showError(error),
    });
  };

  return (
    <section className="card" aria-labelledby="permissions-location">
      <h2 className="kfs__heading" id="permissions-location">
        {t('permissions.locationHeading')}
      </h2>
      {/* A status already shown stays while it is read again (after a withdrawal), even if that read fails. */}
      {status.data ? (
        status.data.granted ? (
          <>
            <p className="permissions__text">{t('permissions.locationShared')}</p>
            <Button
              block
              color="primary"
              fill="outline"
              size="large"
              loading={withdraw.isPending}
              loadingText={t('permissions.deleting')}
              onClick={() => setAsking(true)}
            >
              {t('permissions.stopLocation')}
            </Button>
          </>
        ) : (
          <p className="permissions__text">{t('permissions.locationNotShared')}</p>
        )
      ) : status.isError ? (
        <StateNotice kind="error" title={t('permissions.locationLoadFailed')} text={errorText(status.error, t)} onRetry={() => void status.refetch()} />
      ) : (
        <LoadingState />
      )}
      {/* Always in the page, so a screen reader announces the text put into it. */}
      <p className="permissions__notice" role="status">
        {notice}
      </p>
      {/* Mounted only while asking, inside the app's providers so the kit speaks the market's language. */}
      {asking && (
        <Dialog
          visible
          title={t('permissions.stopTitle')}
          content={t('permissions.stopText')}
          closeOnMaskClick
          onClose={() => setAsking(false)}
          actions={[
            [
              { key: 'keep', text: t('permissions.stopCancel'), onClick: () => setAsking(false) },
              {
                key: 'stop',
                text: t('permissions.stopOk'),
                bold: true,
                onClick: () => {
                  setAsking(false);
                  onWithdraw();
                },
              },
            ],
          ]}
        />
      )}
    </section>
  );
}

function DeviceSection() {
  const { t } = useTranslation();
  const forget = useForgetDevice();
  const showError = useErrorToast();
  const [notice, setNotice] = useState('');

  const onForget = () => {
    if (forget.isPending) return;
    // Emptied first, so the same words said again are announced again.
    setNotice('');
    forget.mutate(undefined, {
      onSuccess: ({ forgotten }) => setNotice(t(forgotten ? 'permissions.deviceDeleted' : 'permissions.deviceNone')),
      onError: (error) => showError(error),
    });
  };

  return (
    <section className="card" aria-labelledby="permissions-device">
      <h2 className="kfs__heading" id="permissions-device">
        {t('permissions.deviceHeading')}
      </h2>
      <p className="permissions__text">{t('permissions.deviceText')}</p>
      <Button block color="primary" fill="outline" size="large" loading={forget.isPending} loadingText={t('permissions.deleting')} onClick={onForget}>
        {t('permissions.deleteDevice')}
      </Button>
      <p className="permissions__notice" role="status">
        {notice}
      </p>
    </section>
  );
}
