import { Button, List } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { useLogOut } from '../../api/logout';
import { useMe } from '../../api/me';
import { useSiteSettings } from '../../api/site-settings';
import type { Me } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useFollowBorrowerMarket } from '../../ui/use-borrower-market';
import { useErrorToast } from '../../ui/use-error-toast';

/** The signed-in borrower's menu (PRODUCT.md §2: it takes the original User page's role). */
export function MePage() {
  const { t } = useTranslation();
  const me = useMe();
  useFollowBorrowerMarket(me.data?.market);
  return (
    <Screen title={t('me.title')} tabs>
      {me.isPending ? (
        <LoadingState />
      ) : me.isError ? (
        // A 401 has already moved the app to the login screen; anything else can be tried again.
        <StateNotice kind="error" title={t('me.loadFailed')} text={errorText(me.error, t)} onRetry={() => void me.refetch()} />
      ) : (
        <MeDetails me={me.data} />
      )}
    </Screen>
  );
}

function MeDetails({ me }: { me: Me }) {
  const { t } = useTranslation();
  const market = useMarket();
  const navigate = useNavigate();
  const { data: settings } = useSiteSettings();
  const logout = useLogOut();
  const showError = useErrorToast();
  const since = new Intl.DateTimeFormat(market.locale, { dateStyle: 'long' }).format(new Date(me.createdAt));

  const onLogOut = () =>
    logout.mutate(undefined, {
      onSuccess: () => void navigate('/login', { replace: true }),
      onError: (error) => {
        // A session that is already gone is as good as logged out (the 401 handler has moved on).
        if (error instanceof ApiError && error.status === 401) return;
        showError(error);
      },
    });

  const whatsappDigits = settings?.whatsappNumber.replace(/\D/g, '') ?? '';

  return (
    <div className="me">
      <List header={<h2 className="list-heading">{t('me.account')}</h2>} mode="card">
        <List.Item extra={<span className="me__value">{me.phoneMasked}</span>}>{t('me.phone')}</List.Item>
        <List.Item extra={<span className="me__value">{t(`me.markets.${me.market}`)}</span>}>{t('me.market')}</List.Item>
        <List.Item extra={<span className="me__value">{since}</span>}>{t('me.since')}</List.Item>
      </List>

      <List header={<h2 className="list-heading">{t('me.loans')}</h2>} mode="card">
        <List.Item>
          <Link className="list-link" to="/orders">
            {t('me.orders')}
          </Link>
        </List.Item>
        <List.Item>
          <Link className="list-link" to="/certification">
            {t('me.certification')}
          </Link>
        </List.Item>
      </List>

      <List header={<h2 className="list-heading">{t('me.help')}</h2>} mode="card">
        <List.Item>
          <Link className="list-link" to="/customer-service">
            {t('support.title')}
          </Link>
        </List.Item>
        <List.Item>
          <Link className="list-link" to="/complaints">
            {t('complaints.title')}
          </Link>
        </List.Item>
        <List.Item>
          <Link className="list-link" to="/agreement">
            {t('me.agreement')}
          </Link>
        </List.Item>
        <List.Item>
          <Link className="list-link" to="/privacy">
            {t('me.privacy')}
          </Link>
        </List.Item>
        <List.Item>
          <Link className="list-link" to="/about">
            {t('me.about')}
          </Link>
        </List.Item>
      </List>

      {settings && (
        <List header={<h2 className="list-heading">{t('me.service')}</h2>} mode="card">
          <List.Item extra={<a href={`tel:${settings.servicePhone.replace(/[^\d+]/g, '')}`}>{settings.servicePhone}</a>}>
            {t('me.servicePhone')}
          </List.Item>
          <List.Item
            extra={
              whatsappDigits ? (
                <a href={`https://wa.me/${whatsappDigits}`} rel="noopener noreferrer" target="_blank">
                  {settings.whatsappNumber}
                </a>
              ) : (
                settings.whatsappNumber
              )
            }
          >
            {t('me.whatsapp')}
          </List.Item>
        </List>
      )}

      <div className="me__logout">
        <Button block color="danger" fill="outline" size="large" loading={logout.isPending} loadingText={t('me.logout')} onClick={onLogOut}>
          {t('me.logout')}
        </Button>
      </div>
    </div>
  );
}
