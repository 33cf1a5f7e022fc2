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

type Fits<A, B> = A extends B ? true : never;
export const requestsFitTheSchema: [
  Fits<CodeRequest, RequestBody<Post<'/api/v1/borrower/login/sms-code'>>>,
  Fits<CodeRequest, RequestBody<Post<'/api/v1/borrower/login/voice-code'>>>,
  Fits<LoginRequest, RequestBody<Post<'/api/v1/borrower/login'>>>,
] = [true, true, true];
