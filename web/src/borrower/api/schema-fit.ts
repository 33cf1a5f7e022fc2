// The answers of the certification, home and order endpoints are typed by hand in their modules (narrower than
// the generated types: status unions, market codes). This file fails the typecheck when the server's OpenAPI
// document and those hand-written shapes drift apart: every field the app reads must exist in the document, and
// every request the app sends must fit the documented body.
import type { paths } from '@/shared/api/schema';
import type { DataOf, JsonBody } from '@/shared/api/types';
import type { Certification, CertificationLogEntry } from './certification';
import type { ConfirmOrderRequest } from './confirm-order';
import type { Home } from './home';
import type { LoanAgreement } from './order-agreement';
import type { OrderDetail, OrderSummary } from './orders';
import type { PrivacyPolicy } from './privacy';
import type { Recommended } from './recommended';
import type { Cities, Enums } from './reference-data';

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never;
type Answer<O, S extends number = 200> = O extends { responses: { [K in S]: infer R } } ? DataOf<JsonBody<R>> : never;
type RequestBody<O> = O extends { requestBody?: infer B } ? JsonBody<NonNullable<B>> : never;
type Element<T> = T extends readonly (infer E)[] ? E : never;

/** `true` when every key of the hand-written shape is a key of the documented one. */
type KeysIn<Hand, Documented> = [Exclude<keyof Hand, keyof Documented>] extends [never] ? true : Exclude<keyof Hand, keyof Documented>;

export const answersFitTheSchema: [
  KeysIn<Home, Answer<Get<'/api/v1/borrower/home'>>>,
  KeysIn<Recommended, Answer<Get<'/api/v1/borrower/products/recommended'>>>,
  KeysIn<OrderSummary, Element<Answer<Get<'/api/v1/borrower/orders'>>>>,
  KeysIn<OrderDetail, Answer<Get<'/api/v1/borrower/orders/{orderNo}'>>>,
  KeysIn<LoanAgreement, Answer<Get<'/api/v1/borrower/orders/{orderNo}/agreement'>>>,
  KeysIn<Certification, Answer<Get<'/api/v1/borrower/certification'>>>,
  KeysIn<CertificationLogEntry, Element<Answer<Get<'/api/v1/borrower/certification/log'>>>>,
  KeysIn<Enums, Answer<Get<'/api/v1/borrower/enums'>>>,
  KeysIn<Cities, Answer<Get<'/api/v1/borrower/cities'>>>,
  KeysIn<PrivacyPolicy, Answer<Get<'/api/v1/borrower/privacy'>>>,
  KeysIn<ConfirmOrderRequest, RequestBody<Post<'/api/v1/borrower/orders'>>>,
] = [true, true, true, true, true, true, true, true, true, true, true];
