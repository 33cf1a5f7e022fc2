// Every shape of the console API (docs/API-CONSOLE.md), named once from the types generated from the server's OpenAPI
// document (`make openapi`). Amounts are integers in minor units, APRs hundredths of a percent, times epoch ms.
import type { components } from '@/shared/api/schema';

type Schemas = components['schemas'];

export type Role = Schemas['Role'];
export type ApiMarket = Schemas['Market'];
export type Currency = Schemas['Currency'];
/** The signed-in operator (`GET /me`). */
export type Operator = Schemas['OperatorView'];
/** The answer to `POST /login`. */
export type LoggedIn = Schemas['ConsoleLoggedIn'];
export type LoginRequest = Schemas['ConsoleLoginRequest'];
/** One application of the review queue (`GET /applications`). */
export type QueueEntry = Schemas['QueueEntry'];
/** Per market: applications waiting and claimed (`GET /applications/counts`). */
export type QueueCount = Schemas['QueueCount'];
/** A reviewer's live claim on an application. */
export type ClaimView = Schemas['ClaimView'];
/** The borrower's whole picture, duplicates and other orders in the order view. */
export type Picture = Schemas['PictureView'];
export type Duplicate = Schemas['DuplicateView'];
export type PriorOrder = Schemas['PriorOrderView'];
/** `GET /orders/{orderNo}`. */
export type ConsoleOrder = Schemas['ConsoleOrderView'];
export type OrderStatus = Schemas['OrderState'];
export type KeyFactStatement = Schemas['KeyFactStatement'];
export type CertificationStep = Schemas['CertificationStepView'];
export type TimelineEntry = Schemas['ConsoleTimelineEntry'];
/** The answer to approve and reject. */
export type Decision = Schemas['DecisionView'];
/** One entry of `GET /audit`. */
export type AuditEntry = Schemas['AuditEntryView'];
/** A page of `GET /audit`: its entries, and where the next, older page starts (null on the last). */
export type AuditPage = Schemas['AuditPageView'];
/** One approved order awaiting payout (`GET /payouts`). */
export type PayoutEntry = Schemas['PayoutQueueEntry'];
export type DashboardView = Schemas['DashboardView'];
export type DashboardDay = Schemas['DashboardDay'];
export type DashboardBook = Schemas['DashboardBook'];
export type DashboardRates = Schemas['DashboardRates'];
export type DashboardPayoutTimes = Schemas['DashboardPayoutTimes'];
/** The answer to `POST /orders/{orderNo}/disburse`. */
export type Disbursed = Schemas['DisbursedView'];
/** One payment of finance's queue (`GET /payments`). */
export type QueuedPayment = Schemas['QueuedPaymentView'];
/** The answer to `POST /payments/{paymentId}/confirm`. */
export type Confirmed = Schemas['ConfirmedView'];
export type PaymentView = Schemas['PaymentView'];
/** The loan of a paid-out order in the order view. */
export type ConsoleLoan = Schemas['ConsoleLoanView'];
/** A product as admins see it (`GET /products`). */
export type ConsoleProduct = Schemas['ConsoleProductView'];
export type ProductPreview = Schemas['ProductPreviewView'];
/** An operator account as admins see it (`GET /operators`). */
export type OperatorAccount = Schemas['OperatorAccountView'];
/** A complaint in support's queue (`GET /complaints`), with its age and deadline flag. */
export type QueuedComplaint = Schemas['QueuedComplaint'];
/** A page of support's queue with its total. */
export type ComplaintQueue = Schemas['ComplaintQueueView'];
/** A complaint with its conversation (`GET /complaints/{ticketNo}`). */
export type SupportComplaint = Schemas['SupportComplaintView'];
/** A contact-form message with its reply channel and handled flag. */
export type ContactMessage = Schemas['ContactMessageView'];
export type ContactMessagePage = Schemas['ContactMessagesView'];
export type Handled = Schemas['HandledView'];
/** An operator a complaint may be assigned to (`GET /complaint-assignees`). */
export type Assignee = Schemas['AssigneeView'];
/** A canned reply of support (`GET /canned-replies`), in one language. */
export type CannedReply = Schemas['CannedReplyView'];
/** The body of `POST /canned-replies` and `PUT /canned-replies/{id}`. */
export type CannedReplyWrite = Schemas['CannedReplyWriteRequest'];
/** An FAQ entry (`GET /faq`), in one language and category. */
export type FaqEntry = Schemas['FaqView'];
/** The body of `POST /faq` and `PUT /faq/{id}`. */
export type FaqWrite = Schemas['FaqWriteRequest'];
export type FaqDeleted = Schemas['FaqDeleted'];
/** `up` or `down`: the body of `POST /faq/{id}/move`. */
export type FaqDirection = Schemas['FaqDirection'];
/** The answer to `POST /faq/{id}/move`: the moved entry and its category in the new order. */
export type FaqMoved = Schemas['FaqMovedView'];
/** One market's claims on the site (`GET /site/claims`). */
export type SiteClaims = Schemas['SiteClaimsView'];
/** The body of `PUT /site/claims/{market}`. */
export type SiteClaimsWrite = Schemas['SiteClaimsRequest'];
/** Where a loan is paid to, in full (finance; each view audited). */
export type Beneficiary = Schemas['BeneficiaryView'];
/** A payout recorded by one finance operator, waiting for a second one. */
export type PendingPayout = Schemas['PendingPayoutView'];
/** The answer to `POST /payouts/bank-result`. */
export type BankResult = Schemas['BankResultView'];
export type ImportedLine = Schemas['ImportedLineView'];
export type LineOutcome = Schemas['LineOutcome'];
/** The answer to `POST /orders/{orderNo}/payout/reject`. */
export type PayoutRejected = Schemas['PayoutRejectedView'];
/** The answer to `POST /orders/{orderNo}/payout/put-back`. */
export type PutBack = Schemas['PutBack'];
/** A bank's statement layout (`GET /reconciliation/mappings`). */
export type StatementMapping = Schemas['Mapping'];
/** A layout as sent (`POST /reconciliation/mappings`). */
export type StatementMappingRequest = Schemas['MappingRequest'];
/** A file previewed with a layout (`POST /reconciliation/preview`). */
export type StatementPreview = Schemas['Preview'];
/** An import with each line's standing (`GET /reconciliation/imports/{importId}`). */
export type ImportResult = Schemas['ImportResult'];
export type ImportSummary = Schemas['ImportSummary'];
export type ResultLine = Schemas['ResultLine'];
export type LineKind = Schemas['LineKind'];
export type ConfirmOutcome = Schemas['ConfirmOutcome'];
export type Imported = Schemas['ImportedView'];
/** How many payments wait per market and status (`GET /payments/counts`). */
export type PaymentQueueCount = Schemas['QueueCountView'];
/** A page of the overdue queue (`GET /collections`). */
export type CollectionsQueue = Schemas['CollectionsQueueView'];
export type QueuedLoan = Schemas['CollectionsQueuedLoan'];
/** A loan's collections panel (`GET /collections/{orderNo}`). */
export type CollectionsCase = Schemas['CollectionsCaseView'];
export type ContactHours = Schemas['ContactHoursView'];
/** A contact attempt. */
export type ContactLogged = Schemas['CollectionsContactView'];
/** `POST /collections/{orderNo}/contacts`: the contact just logged, with the promise recorded with it (outcome `promised`). */
export type ContactLoggedWithPromise = Schemas['CollectionsContactLoggedView'];
/** A promise to pay with its state. */
export type PromiseToPay = Schemas['CollectionsPromiseView'];
/** `GET /collections/{orderNo}/history`. */
export type ContactHistory = Schemas['CollectionsHistoryView'];
/** `POST /collections/{orderNo}/phone`. */
export type RevealedPhone = Schemas['CollectionsPhoneView'];
