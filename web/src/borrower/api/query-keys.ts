import type { Language } from '@/shared/market/market';
import type { ApiMarket, QuoteRequest } from './types';

// Everything about the signed-in borrower lives under `borrower`, so one call forgets it all at
// log-out or on a 401; public data (settings, the login page's set-up) survives.
export const queryKeys = {
  borrower: ['borrower'] as const,
  me: ['borrower', 'me'] as const,
  menu: ['borrower', 'menu'] as const,
  deletionCheck: ['borrower', 'account', 'deletion'] as const,
  products: ['borrower', 'products'] as const,
  product: (code: string) => ['borrower', 'products', code] as const,
  quote: (request: QuoteRequest) => ['borrower', 'quote', request.productCode, request.amount, request.termCode] as const,
  home: ['borrower', 'home'] as const,
  recommended: ['borrower', 'recommended'] as const,
  apply: (request: QuoteRequest) => ['borrower', 'apply', request.productCode, request.amount, request.termCode] as const,
  applyAgreement: (request: QuoteRequest) => ['borrower', 'apply-agreement', request.productCode, request.amount, request.termCode] as const,
  orders: ['borrower', 'orders'] as const,
  order: (orderNo: string) => ['borrower', 'orders', orderNo] as const,
  orderAgreement: (orderNo: string) => ['borrower', 'orders', orderNo, 'agreement'] as const,
  plan: (orderNo: string) => ['borrower', 'orders', orderNo, 'plan'] as const,
  installment: (orderNo: string, seq: number) => ['borrower', 'orders', orderNo, 'plan', seq] as const,
  repayment: (orderNo: string) => ['borrower', 'orders', orderNo, 'repayment'] as const,
  extension: (orderNo: string) => ['borrower', 'orders', orderNo, 'extension'] as const,
  paymentTypes: (orderNo: string) => ['borrower', 'payment-types', orderNo] as const,
  payment: (paymentId: string) => ['borrower', 'payments', paymentId] as const,
  certification: ['borrower', 'certification'] as const,
  certificationLog: ['borrower', 'certification', 'log'] as const,
  certificationStep: (step: string) => ['borrower', 'certification', 'step', step] as const,
  siteSettings: (market: ApiMarket) => ['public', 'site-settings', market] as const,
  loginInit: (market: ApiMarket) => ['public', 'login-init', market] as const,
  privacy: (language: Language) => ['public', 'privacy', language] as const,
  enums: (market: ApiMarket) => ['public', 'enums', market] as const,
  cities: (market: ApiMarket) => ['public', 'cities', market] as const,
};
