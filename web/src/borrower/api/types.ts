// Every shape of the borrower API (docs/API-BORROWER.md), named once here from the types openapi-typescript
// generates from the server's OpenAPI document (`make openapi`). Nothing is written by hand: a change on the
// server changes these types, and the typecheck finds each use it breaks. Amounts are integers in minor units,
// APRs hundredths of a percent, times epoch milliseconds.
import type { components } from '@/shared/api/schema';

type Schemas = components['schemas'];

/** The market code the API speaks. */
export type ApiMarket = Schemas['Market'];
export type Currency = Schemas['Currency'];

/** What the login screen needs (`GET /login/init`). */
export type LoginInit = Schemas['LoginInit'];
/** The answer to an SMS or voice code request. */
export type CodeSent = Schemas['CodeSent'];
/** The answer to `POST /login`. */
export type LoggedIn = Schemas['LoggedIn'];
/** The answer to `POST /session/exchange`: the borrower the browser is now signed in as. */
export type SessionExchange = Schemas['Exchange'];
/** The signed-in borrower (`GET /me`). */
export type Me = Schemas['BorrowerView'];
/** A loan product of the borrower's market (`GET /products`, `GET /products/{code}`). */
export type Product = Schemas['ProductView'];
/** One term a product offers: `period` is `monthly` or a number of days such as `14d`. */
export type ProductTerm = Schemas['TermView'];

/** The Key Fact Statement `POST /quote` and `POST /apply` answer, and an order carries (docs/MONEY.md §8). */
export type KeyFactStatement = Schemas['KeyFactStatement'];

/** `GET /home`. */
export type Home = Schemas['HomeView'];
/** Why the borrower may not apply now. */
export type IneligibleReason = Schemas['Reason'];
/** `GET /products/recommended`: the products when the borrower may apply, else the reasons and none. */
export type Recommended = Schemas['RecommendedView'];

/** The order states of docs/MONEY.md §6. */
export type OrderStatus = Schemas['OrderState'];
/** One order as `GET /orders` lists it. */
export type OrderSummary = Schemas['OrderSummary'];
/** `GET /orders/{orderNo}`, and the answer to `POST /orders`. */
export type OrderDetail = Schemas['OrderDetail'];
/** `GET /orders/{orderNo}/agreement`. */
export type LoanAgreement = Schemas['Agreement'];

/** A certification step; `CERT_STEPS` (certification.ts) lists them in order. */
export type CertStep = Schemas['Step'];
export type CertStatus = Schemas['CertStatus'];
/** `GET /certification`. */
export type Certification = Schemas['CertificationView'];
/** One line of `GET /certification/log`. */
export type CertificationLogEntry = Schemas['LogEntryView'];
export type BaseInfo = Schemas['BaseInfo'];
export type PersonalInfo = Schemas['PersonalInfo'];
export type JobInfo = Schemas['JobInfo'];
export type ExtendedInfo = Schemas['ExtendedInfo'];
export type BankInfo = Schemas['BankInfo'];
/** Each step's fields, as `data` carries them back. */
export interface StepData {
  base: BaseInfo;
  personal: PersonalInfo;
  job: JobInfo;
  extended: ExtendedInfo;
  bank: BankInfo;
}
/** What a step's form sends: its fields, and for the bank step the account number typed twice. */
export type StepRequest<S extends CertStep> = StepData[S] & (S extends 'bank' ? { accountNumberConfirm?: string } : unknown);
/** `GET /certification/{step}`, with `data` narrowed to the step asked for. */
export type CertificationStepAnswer<S extends CertStep = CertStep> = Omit<Schemas['StepView'], 'step' | 'data'> & {
  step: S;
  data: StepData[S] | null;
};
/** `POST /certification/{step}`: the saved step and where to go next. */
export type CertificationStepSaved<S extends CertStep = CertStep> = CertificationStepAnswer<S> & {
  next?: CertStep | null;
};

/** `GET /enums?market=`: the choices and the market's rules the forms follow. */
export type Enums = Schemas['EnumsView'];
/** One choice of an enumeration: `code` travels, `label` is shown. */
export type EnumOption = Schemas['Choice'];
export type BankOption = Schemas['BankChoice'];
/** `GET /cities?market=`. */
export type Cities = Schemas['CitiesView'];
export type Region = Schemas['Region'];
export type City = Schemas['City'];

/** The privacy policy (`GET /privacy`). */
export type PrivacyPolicy = Schemas['PrivacyPolicy'];

export type CodeRequest = Schemas['SendCodeRequest'];
export type LoginRequest = Schemas['LoginRequest'];
export type QuoteRequest = Schemas['QuoteRequest'];
export type ConfirmOrderRequest = Schemas['ConfirmRequest'];

// Servicing after payout (issue 8).
/** `GET /orders/{orderNo}/plan`. */
export type LoanPlan = Schemas['LoanPlanView'];
/** One installment of the plan (`GET /orders/{orderNo}/plan/{seq}`). */
export type InstallmentPlan = Schemas['InstallmentPlanView'];
export type InstallmentState = Schemas['InstallmentState'];
/** An amount split into late charges, fees, interest and principal, with its total. */
export type Buckets = Schemas['BucketsView'];
/** `GET /orders/{orderNo}/repayment`. */
export type Repayment = Schemas['RepaymentView'];
export type RepaymentChoice = Schemas['RepaymentChoice'];
export type RepaymentChoiceView = Schemas['ChoiceView'];
/** A payment type of the market, and a payment's instructions. */
export type PaymentInstructions = Schemas['InstructionsView'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type PaymentStatus = Schemas['PaymentStatus'];
/** `POST /orders/{orderNo}/payments`, `GET /payments/{paymentId}`. */
export type Payment = Schemas['PaymentView'];
/** `GET /orders/{orderNo}/extension`. */
export type Extension = Schemas['ExtensionView'];
export type RatingSaved = Schemas['RatingSaved'];
export type LocationStatus = Schemas['LocationStatusView'];
export type LocationSaved = Schemas['LocationSaved'];
/** `DELETE /device`: whether the phone's details were kept, and are now deleted. */
export type DeviceForgotten = Schemas['DeviceForgotten'];

/** `GET /customer-service`: service phone and hours, WhatsApp, the grievance officer, the regulator's channel. */
export type CustomerService = Schemas['CustomerServiceView'];
/** One question of `GET /faq`. */
export type FaqEntry = Schemas['FaqView'];
/** `GET /complaints/init`: categories and the borrower's loans. */
export type ComplaintInit = Schemas['ComplaintInitView'];
/** An uploaded image (`POST /complaints/images`). */
export type ComplaintImage = Schemas['ImageView'];
/** A complaint as `GET /complaints` lists it. */
export type ComplaintSummary = Schemas['ComplaintSummary'];
/** `GET /complaints/{ticketNo}` with the conversation. */
export type ComplaintDetail = Schemas['ComplaintDetailView'];
export type ComplaintSaveRequest = Schemas['ComplaintSaveRequest'];

/** One entry of the "me" menu (`GET /menu`), served so that it can change without a release. */
export type MenuEntry = Schemas['MenuEntry'];
/** `GET /account/deletion`: whether the account can be deleted now, and if not why and how much is owed. */
export type DeletionCheck = Schemas['DeletionCheck'];
/** The answer to `POST /account/deletion`. */
export type AccountDeleted = Schemas['Deleted'];
/** `GET /export`: everything held about the borrower. */
export type DataExport = Schemas['DataExport'];
