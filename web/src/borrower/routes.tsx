import { lazy, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import type { Language } from '@/shared/market/market';
import { useMe } from './api/me';
import { hasPartTexts, loadPartTexts, preloadPartTexts } from './i18n/borrower-i18n';
import { AppLayout, ScreenLoading } from './layout/app-layout';
import { APP_BASENAME } from './paths';
// The error notice is part of the entry: it must show when a screen's chunk cannot be fetched.
import { ErrorPage, NotFoundPage } from './screens/error/error-page';
import { useFollowBorrowerMarket } from './ui/use-borrower-market';

// Each screen is its own chunk, fetched when first shown; `preloadScreen` starts the first screen's
// download (and its texts') while the entry is still starting, so it does not wait for React to ask for it.
const screens = {
  login: () => import('./screens/login/login-page'),
  me: () => import('./screens/me/me-page'),
  products: () => import('./screens/products/products-page'),
  product: () => import('./screens/products/product-page'),
  kfs: () => import('./screens/products/kfs-page'),
  agreement: () => import('./screens/legal/agreement-page'),
  privacy: () => import('./screens/legal/privacy-page'),
  home: () => import('./screens/home/home-page'),
  recommend: () => import('./screens/home/recommend-page'),
  orders: () => import('./screens/orders/orders-page'),
  order: () => import('./screens/orders/order-page'),
  orderAgreement: () => import('./screens/orders/agreement-doc-page'),
  plan: () => import('./screens/servicing/plan-page'),
  installment: () => import('./screens/servicing/installment-page'),
  pay: () => import('./screens/servicing/pay-page'),
  extension: () => import('./screens/servicing/extension-page'),
  payment: () => import('./screens/servicing/payment-page'),
  dragonpay: () => import('./screens/servicing/dragonpay-page'),
  about: () => import('./screens/legal/about-page'),
  customerService: () => import('./screens/support/customer-service-page'),
  complaints: () => import('./screens/support/complaints-page'),
  complaintNew: () => import('./screens/support/complaint-new-page'),
  complaint: () => import('./screens/support/complaint-page'),
  certification: () => import('./screens/certification/certification-page'),
  certificationStep: () => import('./screens/certification/step-page'),
  deleteAccount: () => import('./screens/account/delete-account-page'),
  bankCard: () => import('./screens/account/bank-card-page'),
  permissions: () => import('./screens/account/permissions-page'),
};

const LoginPage = lazy(() => screens.login().then((m) => ({ default: m.LoginPage })));
const MePage = lazy(() => screens.me().then((m) => ({ default: m.MePage })));
const ProductsPage = lazy(() => screens.products().then((m) => ({ default: m.ProductsPage })));
const ProductPage = lazy(() => screens.product().then((m) => ({ default: m.ProductPage })));
const KfsPage = lazy(() => screens.kfs().then((m) => ({ default: m.KfsPage })));
const AgreementPage = lazy(() => screens.agreement().then((m) => ({ default: m.AgreementPage })));
const PrivacyPage = lazy(() => screens.privacy().then((m) => ({ default: m.PrivacyPage })));
const HomePage = lazy(() => screens.home().then((m) => ({ default: m.HomePage })));
const RecommendPage = lazy(() => screens.recommend().then((m) => ({ default: m.RecommendPage })));
const OrdersPage = lazy(() => screens.orders().then((m) => ({ default: m.OrdersPage })));
const OrderPage = lazy(() => screens.order().then((m) => ({ default: m.OrderPage })));
const AgreementDocPage = lazy(() => screens.orderAgreement().then((m) => ({ default: m.AgreementDocPage })));
const PlanPage = lazy(() => screens.plan().then((m) => ({ default: m.PlanPage })));
const InstallmentPage = lazy(() => screens.installment().then((m) => ({ default: m.InstallmentPage })));
const PayPage = lazy(() => screens.pay().then((m) => ({ default: m.PayPage })));
const ExtensionPage = lazy(() => screens.extension().then((m) => ({ default: m.ExtensionPage })));
const PaymentPage = lazy(() => screens.payment().then((m) => ({ default: m.PaymentPage })));
const DragonpayPage = lazy(() => screens.dragonpay().then((m) => ({ default: m.DragonpayPage })));
const CustomerServicePage = lazy(() => screens.customerService().then((m) => ({ default: m.CustomerServicePage })));
const ComplaintsPage = lazy(() => screens.complaints().then((m) => ({ default: m.ComplaintsPage })));
const ComplaintNewPage = lazy(() => screens.complaintNew().then((m) => ({ default: m.ComplaintNewPage })));
const ComplaintPage = lazy(() => screens.complaint().then((m) => ({ default: m.ComplaintPage })));
const AboutPage = lazy(() => screens.about().then((m) => ({ default: m.AboutPage })));
const CertificationPage = lazy(() => screens.certification().then((m) => ({ default: m.CertificationPage })));
const DeleteAccountPage = lazy(() => screens.deleteAccount().then((m) => ({ default: m.DeleteAccountPage })));
const BankCardPage = lazy(() => screens.bankCard().then((m) => ({ default: m.BankCardPage })));
const PermissionsPage = lazy(() => screens.permissions().then((m) => ({ default: m.PermissionsPage })));
const CertificationStepPage = lazy(() => screens.certificationStep().then((m) => ({ default: m.CertificationStepPage })));

/** The app's screens, under the /app basename. */
export function BorrowerRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="login" element={<LoginPage />} />
        <Route element={<WithPartTexts />}>
          {/* A signed-in borrower lands on home: their details, their loan, whether they may apply. */}
          <Route index element={<Navigate to="/home" replace />} />
          <Route element={<InBorrowerMarket />}>
            <Route path="home" element={<HomePage />} />
            <Route path="recommend" element={<RecommendPage />} />
            <Route path="orders" element={<OrdersPage />} />
            <Route path="orders/:orderNo" element={<OrderPage />} />
            <Route path="orders/:orderNo/agreement" element={<AgreementDocPage />} />
            <Route path="orders/:orderNo/plan" element={<PlanPage />} />
            <Route path="orders/:orderNo/plan/:seq" element={<InstallmentPage />} />
            <Route path="orders/:orderNo/pay/:choice" element={<PayPage />} />
            <Route path="orders/:orderNo/extension" element={<ExtensionPage />} />
            <Route path="payments/:paymentId" element={<PaymentPage />} />
            <Route path="dragonpayPaymentInstructions/:paymentId" element={<DragonpayPage />} />
            <Route path="customer-service" element={<CustomerServicePage />} />
            <Route path="complaints" element={<ComplaintsPage />} />
            <Route path="complaints/new" element={<ComplaintNewPage />} />
            <Route path="complaints/:ticketNo" element={<ComplaintPage />} />
            <Route path="certification" element={<CertificationPage />} />
            <Route path="certification/:step" element={<CertificationStepPage />} />
            <Route path="me" element={<MePage />} />
            <Route path="account/delete" element={<DeleteAccountPage />} />
            <Route path="bank-card" element={<BankCardPage />} />
            <Route path="permissions" element={<PermissionsPage />} />
            <Route path="products" element={<ProductsPage />} />
            <Route path="products/:code" element={<ProductPage />} />
            <Route path="products/:code/kfs" element={<KfsPage />} />
          </Route>
          {/* Public pages (the login screen links to the agreement and the policy): the market's texts, no borrower's. */}
          <Route path="about" element={<AboutPage />} />
          <Route path="agreement" element={<AgreementPage />} />
          <Route path="privacy" element={<PrivacyPage />} />
          <Route path="error" element={<ErrorPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Route>
    </Routes>
  );
}

/**
 * Every screen but the login screen, once the texts of the app's other parts have arrived (borrower-i18n.ts):
 * the loading state meanwhile, the error notice (the layout's boundary) if they cannot be fetched. State
 * rather than suspending with `use`, which never resumes after a test's synchronous render.
 */
function WithPartTexts() {
  const { i18n } = useTranslation();
  const { pathname } = useLocation();
  const [texts, setTexts] = useState<{ ready: boolean; error?: unknown }>(() => ({ ready: hasPartTexts(i18n) }));
  useEffect(() => {
    if (texts.ready) return;
    // The screen's chunk downloads meanwhile (coming from the login screen), not after them.
    preloadScreen(pathname, i18n.language as Language);
    let current = true;
    loadPartTexts(i18n).then(
      () => current && setTexts({ ready: true }),
      (error: unknown) => current && setTexts({ ready: false, error }),
    );
    return () => {
      current = false;
    };
  }, [i18n, pathname, texts.ready]);
  if ('error' in texts) throw texts.error;
  return texts.ready ? <Outlet /> : <ScreenLoading />;
}

/**
 * The screens of a signed-in borrower, in the borrower's own market: one opened in the other (a bookmark or a shared link
 * without `?lang=1`, a new tab) opens again in theirs, so every screen, amount and document is in their language.
 */
function InBorrowerMarket() {
  const me = useMe();
  useFollowBorrowerMarket(me.data?.market);
  return <Outlet />;
}

/** Starts loading the screen for a path under /app, and the texts it needs, before React renders it. */
export function preloadScreen(pathname: string, language: Language): void {
  const path = pathname.startsWith(APP_BASENAME) ? pathname.slice(APP_BASENAME.length) : pathname;
  const parts = path.replace(/^\/+|\/+$/g, '').split('/');
  let name = parts[0] || 'home';
  if (name === 'products' && parts.length === 2) name = 'product';
  else if (name === 'products' && parts[2] === 'kfs') name = 'kfs';
  else if (name === 'orders' && parts.length === 2) name = 'order';
  else if (name === 'orders' && parts[2] === 'agreement') name = 'orderAgreement';
  else if (name === 'orders' && parts[2] === 'plan') name = parts.length === 4 ? 'installment' : 'plan';
  else if (name === 'orders' && parts[2] === 'pay') name = 'pay';
  else if (name === 'orders' && parts[2] === 'extension') name = 'extension';
  else if (name === 'payments') name = 'payment';
  else if (name === 'certification' && parts.length === 2) name = 'certificationStep';
  else if (name === 'account' && parts[1] === 'delete') name = 'deleteAccount';
  else if (name === 'bank-card') name = 'bankCard';
  const load = (screens as Record<string, () => Promise<unknown>>)[name];
  void load?.().catch(() => undefined);
  if (name !== 'login') preloadPartTexts(language);
}
