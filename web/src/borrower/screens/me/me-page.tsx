import { Button, List, Toast } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { saveSummary, useDataExport, useMenu } from '../../api/account';
import { useLogOut } from '../../api/logout';
import { useMe } from '../../api/me';
import { useSiteSettings } from '../../api/site-settings';
import type { Me, MenuEntry } from '../../api/types';
import { sessionStorageOrNull } from '../../boot';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useErrorToast } from '../../ui/use-error-toast';
import { forgetAllDrafts } from '../certification/step-draft';
import { formatLongDay } from '../orders/format';

/** The signed-in borrower's menu (PRODUCT.md §2: it takes the original User page's role). */
export function MePage() {
  const { t } = useTranslation();
  const me = useMe();
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
  const since = formatLongDay(me.createdAt, market);

  const onLogOut = () =>
    logout.mutate(undefined, {
      onSuccess: () => {
        // Nothing the borrower typed stays in this tab for whoever uses it next.
        forgetAllDrafts(sessionStorageOrNull());
        void navigate('/login', { replace: true });
      },
      onError: (error) => {
        // A session that is already gone is as good as logged out (the 401 handler has moved on).
        if (error instanceof ApiError && error.status === 401) {
          forgetAllDrafts(sessionStorageOrNull());
          return;
        }
        showError(error);
      },
    });

  const dataExport = useDataExport();
  const onExport = () =>
    dataExport.mutate(undefined, {
      onSuccess: () => Toast.show({ content: t('menu.exportDone') }),
      onError: (error) => showError(error),
    });

  const whatsappDigits = settings?.whatsappNumber.replace(/\D/g, '') ?? '';

  return (
    <div className="me">
      <List header={<h2 className="list-heading">{t('me.account')}</h2>} mode="card">
        <List.Item extra={<span className="me__value">{me.phoneMasked}</span>}>{t('me.phone')}</List.Item>
        <List.Item extra={<span className="me__value">{t(`me.markets.${me.market}`)}</span>}>{t('me.market')}</List.Item>
        <List.Item extra={<span className="me__value">{since}</span>}>{t('me.since')}</List.Item>
      </List>

      {/* Once logged out the borrower's queries are gone: a re-render must not ask for the menu again (401). */}
      <AccountMenu signedIn={!logout.isSuccess} />

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
        <Button block fill="outline" size="large" loading={dataExport.isPending} loadingText={t('menu.exportWorking')} onClick={onExport}>
          {t('menu.exportData')}
        </Button>
        {dataExport.data && (
          <Button block fill="outline" size="large" onClick={() => saveSummary(dataExport.data)}>
            {t('menu.exportSummary')}
          </Button>
        )}
        <Button block color="danger" fill="outline" size="large" loading={logout.isPending} loadingText={t('me.logout')} onClick={onLogOut}>
          {t('me.logout')}
        </Button>
      </div>
    </div>
  );
}

/** The menu when the server's cannot be had: the same entries, in the app's own words. */
const FALLBACK_MENU: readonly (Omit<MenuEntry, 'title'> & { key: keyof typeof FALLBACK_KEYS })[] = [
  { key: 'loans', route: '/orders', action: 'navigate', danger: false },
  { key: 'bank_card', route: '/bank-card', action: 'navigate', danger: false },
  { key: 'customer_service', route: '/customer-service', action: 'navigate', danger: false },
  { key: 'complaints', route: '/complaints', action: 'navigate', danger: false },
  { key: 'about', route: '/about', action: 'navigate', danger: false },
  { key: 'privacy', route: '/privacy', action: 'navigate', danger: false },
  { key: 'permissions', route: '/permissions', action: 'navigate', danger: false },
  { key: 'delete_account', route: '/account/delete', action: 'navigate', danger: true },
];
const FALLBACK_KEYS = {
  loans: 'menu.items.loans',
  bank_card: 'menu.items.bank_card',
  customer_service: 'menu.items.customer_service',
  complaints: 'menu.items.complaints',
  about: 'menu.items.about',
  privacy: 'menu.items.privacy',
  permissions: 'menu.items.permissions',
  delete_account: 'menu.items.delete_account',
} as const;

/**
 * The entries the server serves (`GET /menu`), so they can change without a release; the log-out entry is the button
 * below. While the menu loads, or when it cannot be had, the usual entries stand in.
 */
function AccountMenu({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  const menu = useMenu(signedIn);
  const entries: MenuEntry[] = menu.data
    ? menu.data.filter((e) => e.action === 'navigate')
    : FALLBACK_MENU.map((e) => ({ ...e, title: t(FALLBACK_KEYS[e.key]) }));
  // A warning entry (deleting the account) comes last, after the app's own entries, never mid-list.
  const entry = (e: MenuEntry) => (
    <List.Item key={e.key}>
      <Link className={e.danger ? 'list-link list-link--danger' : 'list-link'} to={e.route}>
        {e.title}
      </Link>
    </List.Item>
  );
  return (
    <List header={<h2 className="list-heading">{t('menu.heading')}</h2>} mode="card">
      {entries.filter((e) => !e.danger).map(entry)}
      <List.Item>
        <Link className="list-link" to="/certification">
          {t('me.certification')}
        </Link>
      </List.Item>
      <List.Item>
        <Link className="list-link" to="/agreement">
          {t('me.agreement')}
        </Link>
      </List.Item>
      {entries.filter((e) => e.danger).map(entry)}
      {menu.isError && (
        <List.Item>
          <span className="kfs__note">{t('menu.fallbackNote')}</span>
        </List.Item>
      )}
    </List>
  );
}
