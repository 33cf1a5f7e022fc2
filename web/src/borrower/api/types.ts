// Shapes of the borrower sign-in API (docs/API-BORROWER.md), taken from the generated OpenAPI types by
// path, as src/shared/api/types.ts does for the site.
import type { paths } from '@/shared/api/schema';
import type { DataOf, JsonBody } from '@/shared/api/types';

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never;
type Answer<O> = O extends { responses: { 200: infer R } } ? DataOf<JsonBody<R>> : never;
type RequestBody<O> = O extends { requestBody?: infer B } ? JsonBody<NonNullable<B>> : never;

/** The market code the API speaks. */
export type ApiMarket = 'IN' | 'ID';

/** What the login screen needs (`GET /login/init`). */
export type LoginInit = Answer<Get<'/api/v1/borrower/login/init'>>;
/** The answer to an SMS or voice code request. */
export type CodeSent = Answer<Post<'/api/v1/borrower/login/sms-code'>>;
/** The answer to `POST /login`. */
export type LoggedIn = Answer<Post<'/api/v1/borrower/login'>>;
/** The signed-in borrower (`GET /me`). */
export type Me = Answer<Get<'/api/v1/borrower/me'>>;
/** A loan product of the borrower's market (`GET /products`, `GET /products/{code}`). */
export type Product = Answer<Get<'/api/v1/borrower/products/{code}'>>;
/** One term a product offers: `period` is `monthly` or a number of days such as `14d`. */
export type ProductTerm = Product['terms'][number];

/**
 * The Key Fact Statement `POST /quote` answers (docs/MONEY.md §8). The OpenAPI document only says
 * "object" for it, so its shape is written out here; every amount is an integer in minor units.
 */
export interface KeyFactStatement {
  version: number;
  contentHash: string;
  /** `licence` (the RBI registration or OJK licence line) since version 2; absent in older statements. */
  lender: { name: string; licence?: string; grievanceOfficer: { name: string; email: string; phone: string } };
  market: ApiMarket;
  currency: 'INR' | 'IDR';
  productCode: string;
  productName: string;
  termCode: string;
  interest: { rate: string; per: string; method: string };
  sanctionedAmount: number;
  /** `YYYY-MM-DD`: the quote is for a loan paid out on this day. */
  disbursalDate: string;
  fees: { name: string; amount: number; tax: number; total: number }[];
  totalFees: number;
  feesDeductedAtDisbursal: boolean;
  netDisbursed: number;
  totalInterest: number;
  totalRepayable: number;
  installments: { number?: number; dueDate: string; principal: number; interest: number; fees: number; amount: number }[];
  /** Hundredths of a percent. */
  apr: number;
  aprDisplay: string;
  /** Per overdue installment: `flat` once, plus `per_day` for at most `max_days` days. */
  lateCharge: { flat: number; per_day: number; max_days: number };
  maxLateCharges: number;
  coolingOffDays: number;
}

// The server takes every request field as optional (so a missing one becomes a field error); the app
// always sends them all, and these stricter shapes must still fit the documented ones.
export interface CodeRequest {
  market: ApiMarket;
  phone: string;
}

export interface LoginRequest {
  market: ApiMarket;
  phone: string;
  code: string;
}

export interface QuoteRequest {
  productCode: string;
  /** Minor units. */
  amount: number;
  termCode: string;
}

type Fits<A, B> = A extends B ? true : never;
export const requestsFitTheSchema: [
  Fits<CodeRequest, RequestBody<Post<'/api/v1/borrower/login/sms-code'>>>,
  Fits<CodeRequest, RequestBody<Post<'/api/v1/borrower/login/voice-code'>>>,
  Fits<LoginRequest, RequestBody<Post<'/api/v1/borrower/login'>>>,
  Fits<QuoteRequest, RequestBody<Post<'/api/v1/borrower/quote'>>>,
] = [true, true, true, true];
