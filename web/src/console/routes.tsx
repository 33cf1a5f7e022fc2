// The console's pages. Each signed-in page is gated by the roles of sections.ts.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { ErrorBoundary } from '@/shared/ui/error-boundary';
import { useMe } from './api/session';
import { useCsrf } from './csrf-context';
import { ConsoleLayout } from './layout/console-layout';
import { OperatorContext, useOperator } from './operator-context';
import { consolePaths } from './paths';
import { AuditScreen } from './screens/audit';
import { OperatorsScreen } from './screens/operators';
import { DashboardScreen } from './screens/dashboard';
import { FaqScreen } from './screens/faq';
import { SiteScreen } from './screens/site';
import { ComplaintScreen, ComplaintsScreen } from './screens/complaints';
import { CollectionsCaseScreen, CollectionsScreen } from './screens/collections';
import { ContactMessagesScreen } from './screens/contact-messages';
import { CannedRepliesScreen } from './screens/canned-replies';
import { OrderScreen } from './screens/order';
import { OwnPasswordScreen } from './screens/own-password';
import { PageFailed } from './screens/page-failed';
import { ProductsScreen } from './screens/products';
import { PayoutsScreen } from './screens/payouts';
import { QueueScreen } from './screens/queue';
import { ReconciliationScreen } from './screens/reconciliation';
import { RepaymentsScreen } from './screens/repayments';
import { SignInScreen } from './screens/sign-in';
import { LoadFailed, Loading, NotAllowed } from './screens/states';
import { SECTIONS, hasAnyRole, sectionsFor, type SectionKey } from './sections';

export function ConsoleRoutes() {
  return (
    <Routes>
      <Route path={consolePaths.signIn} element={<SignInScreen />} />
      <Route element={<SignedIn />}>
        <Route index element={<Home />} />
        <Route path={consolePaths.queue} element={<Gate section="queue"><QueueScreen /></Gate>} />
        <Route path="/orders/:orderNo" element={<OrderScreen />} />
        <Route path={consolePaths.payouts} element={<Gate section="payouts"><PayoutsScreen /></Gate>} />
        <Route path={consolePaths.repayments} element={<Gate section="repayments"><RepaymentsScreen /></Gate>} />
        <Route path={consolePaths.reconciliation} element={<Gate section="reconciliation"><ReconciliationScreen /></Gate>} />
        <Route path={consolePaths.audit} element={<Gate section="audit"><AuditScreen /></Gate>} />
        <Route path={consolePaths.products} element={<Gate section="products"><ProductsScreen /></Gate>} />
        <Route path={consolePaths.operators} element={<Gate section="operators"><OperatorsScreen /></Gate>} />
        <Route path={consolePaths.dashboard} element={<Gate section="dashboard"><DashboardScreen /></Gate>} />
        <Route path={consolePaths.complaints} element={<Gate section="complaints"><ComplaintsScreen /></Gate>} />
        <Route path="/complaints/:ticketNo" element={<Gate section="complaints"><ComplaintScreen /></Gate>} />
        <Route path={consolePaths.cannedReplies} element={<Gate section="complaints"><CannedRepliesScreen /></Gate>} />
        <Route path={consolePaths.contact} element={<Gate section="contact"><ContactMessagesScreen /></Gate>} />
        <Route path={consolePaths.faq} element={<Gate section="faq"><FaqScreen /></Gate>} />
        <Route path={consolePaths.site} element={<Gate section="site"><SiteScreen /></Gate>} />
        <Route path={consolePaths.collections} element={<Gate section="collections"><CollectionsScreen /></Gate>} />
        <Route path="/collections/:orderNo" element={<Gate section="collections"><CollectionsCaseScreen /></Gate>} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

/**
 * The signed-in frame: without a CSRF token (never signed in here, or signed out) or with a session the server no
 * longer knows (401), the sign-in, which comes back to this page afterwards.
 */
function SignedIn() {
  const { t } = useTranslation();
  const location = useLocation();
  const csrf = useCsrf();
  const hasToken = csrf.get() !== null;
  const me = useMe({ enabled: hasToken });
  const signIn = <Navigate to={consolePaths.signIn} replace state={{ from: `${location.pathname}${location.search}` }} />;

  if (!hasToken) return signIn;
  if (me.isPending) return <Loading label={t('common.loading')} />;
  if (me.isError) return me.error.status === 401 ? signIn : <main className="console-main"><LoadFailed error={me.error} onRetry={() => void me.refetch()} /></main>;
  // A password an admin set: the operator chooses their own first (the server refuses everything else until then).
  if (me.data.passwordChangeRequired) return <OwnPasswordScreen operator={me.data} />;
  return (
    <OperatorContext.Provider value={me.data}>
      <ConsoleLayout operator={me.data}>
        <ErrorBoundary resetKey={location.pathname} fallback={<PageFailed />}>
          <Outlet />
        </ErrorBoundary>
      </ConsoleLayout>
    </OperatorContext.Provider>
  );
}

/** `/console/`: the first section the operator's roles open; an operator with none finds orders by number. */
function Home() {
  const { t } = useTranslation();
  const operator = useOperator();
  const first = sectionsFor(operator)[0];
  if (first) return <Navigate to={first.path} replace />;
  return (
    <section className="panel">
      <h1>{t('home.title', { username: operator.username })}</h1>
      <p>{t('home.lookup')}</p>
    </section>
  );
}

function Gate({ section, children }: { section: SectionKey; children: ReactNode }) {
  const operator = useOperator();
  const roles = SECTIONS.find((s) => s.key === section)?.roles ?? [];
  return hasAnyRole(operator, roles) ? <>{children}</> : <NotAllowed />;
}

function NotFound() {
  const { t } = useTranslation();
  return (
    <section className="panel">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
    </section>
  );
}
