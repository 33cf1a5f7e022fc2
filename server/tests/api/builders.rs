//! Typed test builders: a new borrower brought to a stage of a loan's life through the real HTTP API, step by step
//! in the order the borrower app and the console take it there.
//!
//! ```ignore
//! let loan = app.borrower(IN).disbursed().await; // a `Loan`: session, order number and id, the plan
//! let application = app.borrower(ID).applied().await; // an `Application` in review
//! let borrower = app.borrower(IN).certified().await; // a `Borrower` with no order yet
//! ```
//!
//! Each stage method moves the target forward (never back: that does not compile); awaiting the builder performs every
//! step up to the target and returns what that stage has: a [`Borrower`] (signed in, certified), an [`Application`]
//! (applied, approved) or a [`Loan`] (disbursed). The loan is the market's usual one unless `product`, `amount`,
//! `term` or `loan` say otherwise; the certification is the market's valid data, under another full name if `name`
//! gives one. The builder approves as its own reviewer and pays out as the finance operator a test gives it
//! (`finance`) or else as its own: operators made on first use, once per app ([`Staff`]).

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};

use kilat_domain::{Code, Market};
use kilat_server::auth::operators::{self, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::console::PASSWORD;
use crate::helpers::{TestApp, data};
use crate::servicing::{Op, check_ledger, disburse, op_call, op_sign_in};

/// India ("IN" on the wire).
pub const IN: Market = Market::India;
/// Indonesia ("ID" on the wire).
pub const ID: Market = Market::Indonesia;

/// The loan a builder applies for unless told otherwise: the one most tests of the market take (₹10,000 over 15 days;
/// Rp 1,000,000 over 14 days).
fn usual_loan(market: Market) -> (&'static str, i64, &'static str) {
    match market {
        Market::India => ("in-salary-advance", 1_000_000, "15d"),
        Market::Indonesia => ("id-kilat-30", 100_000_000, "14d"),
    }
}

/// A phone number of `market` that no other builder of this process hands out, in a range the tests' own numbers do
/// not use (India's from 60000 00000, Indonesia's from 0857 0000 0000).
fn fresh_phone(market: Market) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    match market {
        Market::India => format!("6{n:09}"),
        Market::Indonesia => format!("0857{n:08}"),
    }
}

/// A signed-in borrower (certified or not, as built), with no order.
#[derive(Debug, Clone)]
pub struct Borrower {
    /// As signed in with (national, without the country code).
    pub phone: String,
    /// The borrower app's session (`x-session-id`).
    pub session: String,
}

/// A certified borrower with an order: in review (`applied`) or approved (`approved`). (No phone number: give the
/// builder one with `phone` when a test needs it again.)
#[derive(Debug, Clone)]
pub struct Application {
    pub session: String,
    pub order_no: String,
    pub order_id: String,
}

/// A certified borrower with a paid-out loan (`disbursed`).
#[derive(Debug, Clone)]
pub struct Loan {
    pub phone: String,
    pub session: String,
    pub order_no: String,
    pub order_id: String,
    /// The plan as the borrower app shows it right after the payout, checked against the stored ledger's replay
    /// (`servicing::check_ledger`).
    pub plan: Value,
}

/// The steps of a build, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    SignIn,
    Certify,
    Apply,
    Approve,
    Disburse,
}

/// The stage a builder is at: the last step it takes, and what a build to it returns.
pub trait Stage {
    const LAST: Step;
    type Output;
    fn output(built: Built) -> Self::Output;
}

/// `Self` comes before `T`: a builder at `Self` may move on to `T`.
pub trait Before<T> {}

/// Signed in with a fresh phone number of the market, or the one given to `phone` (`POST /borrower/login/sms-code`,
/// the code read from the development outbox, `POST /borrower/login`).
pub struct SignedIn;
/// And through the five certification steps with the market's valid data, under the name given to `name` if any
/// (`POST /borrower/certification/{step}`).
pub struct Certified;
/// And applied for the loan: the KFS (`POST /borrower/apply`), the agreement read (`POST /borrower/apply/agreement`),
/// the order confirmed with both hashes (`POST /borrower/orders`). The order is in review.
pub struct Applied;
/// And approved by a reviewer (`POST /console/orders/{orderNo}/approve`).
pub struct Approved;
/// And paid out by finance (`POST /console/orders/{orderNo}/disburse` with a bank reference); the plan is then read
/// (`GET /borrower/orders/{orderNo}/plan`) and checked against the stored ledger.
pub struct Disbursed;

macro_rules! stages {
    ($($stage:ty => $last:ident, $output:ident;)+) => {$(
        impl Stage for $stage {
            const LAST: Step = Step::$last;
            type Output = $output;
            fn output(built: Built) -> $output {
                built.into()
            }
        }
    )+};
}

stages! {
    SignedIn => SignIn, Borrower;
    Certified => Certify, Borrower;
    Applied => Apply, Application;
    Approved => Approve, Application;
    Disbursed => Disburse, Loan;
}

macro_rules! before {
    ($($earlier:ty => $($later:ty),+;)+) => {$($(impl Before<$later> for $earlier {})+)+};
}

before! {
    SignedIn => Certified, Applied, Approved, Disbursed;
    Certified => Applied, Approved, Disbursed;
    Applied => Approved, Disbursed;
    Approved => Disbursed;
}

/// What a build made, whatever its stage.
pub struct Built {
    phone: String,
    session: String,
    order: Option<(String, String)>,
    plan: Option<Value>,
}

impl From<Built> for Borrower {
    fn from(b: Built) -> Self {
        Borrower {
            phone: b.phone,
            session: b.session,
        }
    }
}

impl From<Built> for Application {
    fn from(b: Built) -> Self {
        let (order_no, order_id) = b.order.expect("an order from the apply step on");
        Application {
            session: b.session,
            order_no,
            order_id,
        }
    }
}

impl From<Built> for Loan {
    fn from(b: Built) -> Self {
        let (order_no, order_id) = b.order.expect("an order from the apply step on");
        Loan {
            phone: b.phone,
            session: b.session,
            order_no,
            order_id,
            plan: b.plan.expect("a plan once paid out"),
        }
    }
}

/// A new borrower of one market on its way to stage `S`; awaiting it performs the steps (see [`TestApp::borrower`]).
#[must_use = "a builder does nothing until it is awaited"]
pub struct BorrowerBuilder<'a, S> {
    app: &'a TestApp,
    market: Market,
    phone: Option<String>,
    name: Option<String>,
    product: Option<String>,
    amount: Option<i64>,
    term: Option<String>,
    finance: Option<&'a Op>,
    stage: PhantomData<S>,
}

impl TestApp {
    /// A builder of a new borrower of `market`. Awaited as it is, the borrower is signed in; `certified()`,
    /// `applied()`, `approved()` and `disbursed()` take it further.
    pub fn borrower(&self, market: Market) -> BorrowerBuilder<'_, SignedIn> {
        BorrowerBuilder {
            app: self,
            market,
            phone: None,
            name: None,
            product: None,
            amount: None,
            term: None,
            finance: None,
            stage: PhantomData,
        }
    }
}

impl<'a, S> BorrowerBuilder<'a, S> {
    fn to<T>(self) -> BorrowerBuilder<'a, T> {
        BorrowerBuilder {
            app: self.app,
            market: self.market,
            phone: self.phone,
            name: self.name,
            product: self.product,
            amount: self.amount,
            term: self.term,
            finance: self.finance,
            stage: PhantomData,
        }
    }

    /// Up to the certification: the five steps with the market's valid data.
    pub fn certified(self) -> BorrowerBuilder<'a, Certified>
    where
        S: Before<Certified>,
    {
        self.to()
    }

    /// Up to an order in review: the KFS asked for, the agreement read, the order confirmed.
    pub fn applied(self) -> BorrowerBuilder<'a, Applied>
    where
        S: Before<Applied>,
    {
        self.to()
    }

    /// Up to the reviewer's approval through the console.
    pub fn approved(self) -> BorrowerBuilder<'a, Approved>
    where
        S: Before<Approved>,
    {
        self.to()
    }

    /// Up to finance's payout through the console, and the plan checked against the stored ledger.
    pub fn disbursed(self) -> BorrowerBuilder<'a, Disbursed>
    where
        S: Before<Disbursed>,
    {
        self.to()
    }

    /// Signs in with this phone number rather than a fresh one (when a test states the number it expects back).
    pub fn phone(mut self, phone: &str) -> Self {
        self.phone = Some(phone.to_owned());
        self
    }

    /// Certifies under this full name rather than the market's valid data's (when a test reads the name back: the
    /// beneficiary finance pays, a bank file's cell).
    pub fn name(mut self, full_name: &str) -> Self {
        self.name = Some(full_name.to_owned());
        self
    }

    /// Applies for this product rather than the market's usual one.
    pub fn product(mut self, code: &str) -> Self {
        self.product = Some(code.to_owned());
        self
    }

    /// Applies for this amount (minor units) rather than the usual one.
    pub fn amount(mut self, minor: i64) -> Self {
        self.amount = Some(minor);
        self
    }

    /// Applies for this term code rather than the usual one.
    pub fn term(mut self, code: &str) -> Self {
        self.term = Some(code.to_owned());
        self
    }

    /// `product`, `amount` and `term` at once.
    pub fn loan(self, product: &str, amount: i64, term: &str) -> Self {
        self.product(product).amount(amount).term(term)
    }

    /// Pays out as this finance operator rather than the builder's own.
    pub fn finance(mut self, op: &'a Op) -> Self {
        self.finance = Some(op);
        self
    }

    /// Performs every step up to `last`, in order, each checked to succeed.
    async fn build(self, last: Step) -> Built {
        let app = self.app;
        let market = self.market.code();
        let phone = self.phone.unwrap_or_else(|| fresh_phone(self.market));
        let session = app.sign_in(market, &phone).await;
        let mut built = Built {
            phone,
            session,
            order: None,
            plan: None,
        };
        if last < Step::Certify {
            return built;
        }
        // Everything but the name stays the market's valid data, so the name is all that tells this borrower apart.
        app.certify_with(market, &built.session, |step, body| {
            if let (Some(name), "base") = (self.name.as_deref(), step) {
                body["fullName"] = json!(name);
            }
        })
        .await;
        if last < Step::Apply {
            return built;
        }
        let (product, amount, term) = usual_loan(self.market);
        let loan = json!({
            "productCode": self.product.as_deref().unwrap_or(product),
            "amount": self.amount.unwrap_or(amount),
            "termCode": self.term.as_deref().unwrap_or(term),
        });
        let kfs = data(
            app.post_as("/api/v1/borrower/apply", &built.session, &loan)
                .await,
        )
        .await;
        let mut confirm = loan.clone();
        confirm["kfsHash"] = kfs["contentHash"].clone();
        confirm["agreementHash"] = app.agreement_hash(&built.session, &loan).await;
        // A key as the app makes them: random, so nothing personal (the phone number) is kept in it.
        confirm["idempotencyKey"] = json!(uuid::Uuid::new_v4().simple().to_string());
        let order = data(
            app.post_as("/api/v1/borrower/orders", &built.session, &confirm)
                .await,
        )
        .await;
        assert_eq!(order["status"], "pending_review", "{order}");
        let order_no = order["orderNo"].as_str().unwrap().to_owned();
        let (order_id,): (String,) = sqlx::query_as("SELECT id FROM orders WHERE order_no = $1")
            .bind(&order_no)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        built.order = Some((order_no.clone(), order_id.clone()));
        if last < Step::Approve {
            return built;
        }
        let no = order_no.as_str();
        let approved = app
            .staff
            .call(app, Role::Reviewer, None, |op| async move {
                op_call(
                    app,
                    &op,
                    Method::POST,
                    &format!("/api/v1/console/orders/{no}/approve"),
                    Some(json!({})),
                )
                .await
            })
            .await;
        assert_eq!(approved.status(), StatusCode::OK, "the approval");
        assert_eq!(data(approved).await["status"], "approved");
        if last < Step::Disburse {
            return built;
        }
        let paid = app
            .staff
            .call(app, Role::Finance, self.finance, |op| async move {
                disburse(app, &op, no).await
            })
            .await;
        assert_eq!(paid.status(), StatusCode::OK, "the payout");
        built.plan = Some(check_ledger(app, &built.session, &order_no, &order_id).await);
        built
    }
}

impl<'a, S: Stage + Send + 'a> IntoFuture for BorrowerBuilder<'a, S> {
    type Output = S::Output;
    type IntoFuture = Pin<Box<dyn Future<Output = S::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { S::output(self.build(S::LAST).await) })
    }
}

/// The operators the builders act as when a test gives none: a reviewer and a finance operator, each made and signed
/// in on first use (once per app), and signed in again when the business clock has ended their session.
#[derive(Default)]
pub struct Staff {
    reviewer: Mutex<Option<Op>>,
    finance: Mutex<Option<Op>>,
}

impl Staff {
    /// Makes one console call as `given`, or else as the staff member of `role`.
    async fn call<F, Fut>(
        &self,
        app: &TestApp,
        role: Role,
        given: Option<&Op>,
        call: F,
    ) -> reqwest::Response
    where
        F: Fn(Op) -> Fut,
        Fut: Future<Output = reqwest::Response>,
    {
        if let Some(op) = given {
            return call(op.clone()).await;
        }
        let (slot, username) = match role {
            Role::Reviewer => (&self.reviewer, "builder-reviewer"),
            Role::Finance => (&self.finance, "builder-finance"),
            other => panic!("the builders have no {other:?}"),
        };
        let mut slot = slot.lock().await;
        let op = match slot.take() {
            Some(op) => op,
            None => {
                // Made once per database: an app on a database another app made it in signs the same one in.
                let _ = operators::create(&app.services, username, PASSWORD, &[role]).await;
                op_sign_in(app, username).await
            }
        };
        let mut response = call(op.clone()).await;
        let op = if response.status() == StatusCode::UNAUTHORIZED {
            let op = op_sign_in(app, username).await;
            response = call(op.clone()).await;
            op
        } else {
            op
        };
        *slot = Some(op);
        response
    }
}
