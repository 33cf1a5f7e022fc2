//! Applying for a loan: who may apply now (eligibility), the Key Fact Statement of the loan chosen, and confirming
//! an accepted KFS into an order, idempotently on the client's key, with its order number.

pub mod order_no;

use std::sync::Arc;

use kilat_domain::{Code, KeyFactStatement, Market, Money, OrderState};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::auth::{Borrower, SignInService, unseal_phone};
use crate::catalog::{self, Catalog, Listed};
use crate::certification::{self, Progress};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::orders::{self, Actor};
use crate::services::Services;
use crate::store::orders::{NewOrder, OpenOrderRow, OrderRow};

pub use order_no::new_order_no;

/// Why a borrower may not apply now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    CertificationIncomplete,
    OpenOrder,
    IncomeBelowMinimum,
}

/// What decides whether the borrower may apply: their certification progress, their open order, and the reasons
/// they may not apply now (none when they may).
pub struct Standing {
    pub progress: Progress,
    pub open_order: Option<OpenOrderRow>,
    pub reasons: Vec<Reason>,
}

impl Standing {
    /// Reads the borrower's standing in two queries at once: progress with the job step's income verdict, and the
    /// open order without its KFS.
    pub async fn of(s: &Services, borrower: &Borrower) -> Result<Self, Error> {
        let ((progress, income_below), open_order) =
            tokio::try_join!(certification::progress_and_income(s, borrower), async {
                Ok::<_, Error>(s.db.open_order(&borrower.id).await?)
            },)?;
        Ok(Self::judge(progress, income_below, open_order))
    }

    /// The live session of a token with its borrower's standing, read in one statement (home), with nothing to
    /// decrypt: the phone masked as stored beside the sealed one, the income's verdict as saved with the job step.
    /// `None` when the token names no live session (the limits of `SignInService::borrower_for_token`).
    pub async fn of_token(s: &Services, token: &str) -> Result<Option<(HomeSession, Self)>, Error> {
        let sign_in = SignInService::of(s);
        let window = sign_in.session_window();
        let token_hash = crate::infra::crypto::token_hash(token);
        let Some(read) =
            s.db.session_standing(&token_hash, window.idle_since, window.created_since)
                .await?
        else {
            return Ok(None);
        };
        let session = read.session;
        let extended_for_ms = sign_in
            .keep_alive(
                &token_hash,
                window,
                session.created_at,
                session.last_seen_at,
            )
            .await?;
        let borrower = session.borrower;
        // Written at sign-up and by migration 0035's backfill; should one be missing, the sealed phone still tells.
        let phone_masked = if read.phone_masked.is_empty() {
            unseal_phone(
                &s.secrets,
                &borrower.id,
                borrower.market,
                &borrower.phone_enc,
            )?
            .masked()
        } else {
            read.phone_masked
        };
        let (progress, income_below) =
            certification::progress_and_income_of(s, &borrower.id, borrower.market, read.steps)
                .await?;
        let standing = Self::judge(progress, income_below, read.open_order);
        Ok(Some((
            HomeSession {
                market: borrower.market,
                phone_masked,
                extended_for_ms,
            },
            standing,
        )))
    }

    fn judge(progress: Progress, income_below: bool, open_order: Option<OpenOrderRow>) -> Self {
        let mut reasons = Vec::new();
        if !progress.is_complete() {
            reasons.push(Reason::CertificationIncomplete);
        }
        if open_order.is_some() {
            reasons.push(Reason::OpenOrder);
        }
        if income_below {
            reasons.push(Reason::IncomeBelowMinimum);
        }
        Self {
            progress,
            open_order,
            reasons,
        }
    }

    pub fn eligible(&self) -> bool {
        self.reasons.is_empty()
    }

    /// The first reason as the refusal an application gets.
    pub fn refusal(&self) -> Option<Refusal> {
        self.reasons.first().map(|reason| match reason {
            Reason::CertificationIncomplete => Refusal::CertificationIncomplete,
            Reason::OpenOrder => Refusal::OpenOrderExists,
            Reason::IncomeBelowMinimum => Refusal::NotEligible,
        })
    }
}

/// A live session's borrower as home shows them, read without decrypting anything; and how long the session now
/// lives when this use extended it (a cookie carrying it is re-issued with that lifetime).
pub struct HomeSession {
    pub market: Market,
    /// `+91 ******3210`.
    pub phone_masked: String,
    pub extended_for_ms: Option<i64>,
}

/// A loan as a request names it. Each field is optional here so that every missing one is reported at once.
#[derive(Debug, Clone, Default)]
pub struct LoanRequest<'a> {
    pub product_code: Option<&'a str>,
    /// Minor units.
    pub amount: Option<i64>,
    pub term_code: Option<&'a str>,
}

/// A loan with its three fields checked against the catalog: product, amount and term.
pub struct LoanChoice {
    /// The product's version on offer now; the order keeps it.
    pub product: Arc<Listed>,
    pub amount: i64,
    pub term: String,
}

/// Reads the three fields of a loan in the borrower's market; each missing or unknown one is added to `errors`.
pub fn choose(
    catalog: &Catalog,
    borrower: &Borrower,
    req: &LoanRequest<'_>,
    errors: &mut FieldErrors,
) -> Option<LoanChoice> {
    let code = req.product_code.map(str::trim).filter(|c| !c.is_empty());
    let term = req.term_code.map(str::trim).filter(|c| !c.is_empty());
    if code.is_none() {
        errors.add("productCode", FieldProblem::required());
    }
    if req.amount.is_none() {
        errors.add("amount", FieldProblem::required());
    }
    if term.is_none() {
        errors.add("termCode", FieldProblem::required());
    }
    let product = catalog.get(borrower.market, code?);
    if product.is_none() {
        errors.add("productCode", FieldProblem::new("field.unknown_product"));
    }
    Some(LoanChoice {
        product: product?,
        amount: req.amount?,
        term: term?.to_owned(),
    })
}

fn choose_or_refuse(
    catalog: &Catalog,
    borrower: &Borrower,
    req: &LoanRequest<'_>,
) -> Result<LoanChoice, Error> {
    let mut errors = FieldErrors::default();
    let choice = choose(catalog, borrower, req, &mut errors);
    match choice {
        Some(choice) if errors.is_empty() => Ok(choice),
        _ => Err(Error::Validation(errors)),
    }
}

/// The KFS of the loan as it would be disbursed today, naming the lender. Nothing is stored.
pub fn key_fact_statement(s: &Services, choice: &LoanChoice) -> Result<KeyFactStatement, Error> {
    catalog::key_fact_statement(
        &s.caps,
        &choice.product,
        Money::from_minor(choice.amount),
        &choice.term,
        s.clock.today(choice.product.market),
        &s.site.lender(choice.product.market),
    )
}

/// The KFS of a loan, whoever asks: no eligibility check.
pub fn quote(
    s: &Services,
    catalog: &Catalog,
    borrower: &Borrower,
    req: &LoanRequest<'_>,
) -> Result<KeyFactStatement, Error> {
    let choice = choose_or_refuse(catalog, borrower, req)?;
    key_fact_statement(s, &choice)
}

/// The KFS of the loan chosen, after checking the borrower may apply now. Nothing is stored.
pub async fn apply(
    s: &Services,
    catalog: &Catalog,
    borrower: &Borrower,
    req: &LoanRequest<'_>,
) -> Result<KeyFactStatement, Error> {
    let choice = choose_or_refuse(catalog, borrower, req)?;
    if let Some(refusal) = Standing::of(s, borrower).await?.refusal() {
        return Err(refusal.into());
    }
    key_fact_statement(s, &choice)
}

/// A confirm: the loan, the hash of the KFS the borrower accepted, and the client's idempotency key.
#[derive(Debug, Clone, Default)]
pub struct Confirmation<'a> {
    pub loan: LoanRequest<'a>,
    pub kfs_hash: Option<&'a str>,
    /// The hash of the agreement the borrower read (`orders::agreement::Agreement::agreement_hash`).
    pub agreement_hash: Option<&'a str>,
    pub idempotency_key: Option<&'a str>,
}

/// What a confirm did.
pub enum Confirmed {
    /// A new order, in `pending_review`.
    Created(OrderRow),
    /// The order this key already made (a retry or a double tap).
    Replayed(OrderRow),
}

/// Checks a client's idempotency key: 8 to 64 characters `[A-Za-z0-9_-]`.
fn idempotency_key<'a>(key: Option<&'a str>, errors: &mut FieldErrors) -> Option<&'a str> {
    match key.map(str::trim).filter(|k| !k.is_empty()) {
        None => {
            errors.add("idempotencyKey", FieldProblem::required());
            None
        }
        Some(k)
            if (8..=64).contains(&k.len())
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(k)
        }
        Some(_) => {
            errors.add("idempotencyKey", FieldProblem::new("field.idempotency_key"));
            None
        }
    }
}

fn hex_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Confirms an application with the KFS accepted: creates the order in `pending_review` with that KFS stored.
/// Idempotent on the client's key: the same key with the same loan answers with the order it made; with another loan
/// it is refused (`idempotency_key_reused`). The database settles races: a unique index on (borrower, key) and a
/// partial unique index allowing one open order per borrower.
pub async fn confirm(
    s: &Services,
    catalog: &Catalog,
    borrower: &Borrower,
    req: &Confirmation<'_>,
) -> Result<Confirmed, Error> {
    let mut errors = FieldErrors::default();
    let key = idempotency_key(req.idempotency_key, &mut errors);
    let kfs_hash = req.kfs_hash.map(str::trim).filter(|h| !h.is_empty());
    if kfs_hash.is_none() {
        errors.add("kfsHash", FieldProblem::required());
    }
    let agreement_hash = req.agreement_hash.map(str::trim).filter(|h| !h.is_empty());
    if agreement_hash.is_none() {
        errors.add("agreementHash", FieldProblem::required());
    }
    let choice = choose(catalog, borrower, &req.loan, &mut errors);
    let (Some(key), Some(kfs_hash), Some(agreement_hash), Some(choice)) =
        (key, kfs_hash, agreement_hash, choice)
    else {
        return Err(Error::Validation(errors));
    };
    errors.into_result()?;
    let request_hash = hex_sha256(&format!(
        "{}\n{}\n{}\n{}",
        choice.product.code, choice.amount, choice.term, kfs_hash
    ));
    // The same request again is answered with its order while that order is open; once it has ended (cancelled,
    // declined) the key is spent: applying again is another order, under a new key.
    let replay = |existing: OrderRow| {
        if existing.request_hash == request_hash && !existing.status.is_final() {
            Ok(Confirmed::Replayed(existing))
        } else {
            Err(Error::Refused(Refusal::IdempotencyKeyReused))
        }
    };
    if let Some(existing) = s.db.order_by_idempotency_key(&borrower.id, key).await? {
        return replay(existing);
    }
    let standing = Standing::of(s, borrower).await?;
    if let Some(refusal) = standing.refusal() {
        // A twin of this request (a double tap) may have made the open order a moment ago: answer with it.
        if refusal == Refusal::OpenOrderExists
            && let Some(existing) = s.db.order_by_idempotency_key(&borrower.id, key).await?
        {
            return replay(existing);
        }
        return Err(refusal.into());
    }
    let kfs = key_fact_statement(s, &choice)?;
    if kfs.content_hash != kfs_hash {
        return Err(Refusal::KfsChanged.into());
    }
    let kfs_json = serde_json::to_string(&kfs).map_err(anyhow::Error::from)?;
    let now = s.clock.now_ms();
    let actor = Actor::Borrower(borrower.id.clone());
    // A clash of order numbers (six random characters a day) is retried with another number.
    for _attempt in 0..4 {
        let order_no = new_order_no(s.clock.today(borrower.market));
        let mut tx = s.db.begin().await?;
        // The agreement is frozen with the order: the borrower's particulars as they are now, read with the borrower
        // locked (a bank-account change takes its turn before or after, never between), and only when they are
        // what the borrower read. A deletion of the account holds the same lock, so of a confirm and a deletion
        // racing, the second sees what the first wrote (a deleted account, or an open order).
        if tx.lock_live_borrower(&borrower.id).await?.is_none() {
            return Err(Refusal::AccountDeleted.into());
        }
        // The certification as it is now, with the borrower locked (a save takes the same lock): a job step saved
        // since the standing above was read (an income lowered under the minimum) is decided on, never slipped past.
        let (progress, income_below) =
            certification::progress_and_income_in(s, &mut tx, &borrower.id, borrower.market)
                .await?;
        if !progress.is_complete() || income_below {
            tx.rollback().await?;
            return Err(if progress.is_complete() {
                Refusal::NotEligible
            } else {
                Refusal::CertificationIncomplete
            }
            .into());
        }
        let party = orders::agreement::party_in(s, &mut tx, borrower).await?;
        if orders::agreement::agreement_hash(&kfs, &party)? != agreement_hash {
            tx.rollback().await?;
            return Err(Error::field(
                "agreementHash",
                FieldProblem::new("field.agreement_changed"),
            ));
        }
        let agreement_json = orders::agreement::snapshot(&order_no, now, &kfs, &party)?;
        let new = NewOrder {
            order_no: &order_no,
            borrower_id: &borrower.id,
            market: borrower.market,
            product_code: &kfs.product_code,
            product_name: &kfs.product_name,
            term_code: &kfs.term_code,
            currency: kfs.currency,
            amount: kfs.sanctioned_amount.minor(),
            net_disbursed: kfs.net_disbursed.minor(),
            total_repayable: kfs.total_repayable.minor(),
            apr: kfs.apr.0,
            apr_display: &kfs.apr_display,
            status: OrderState::PendingReview,
            kfs_json: &kfs_json,
            kfs_hash: &kfs.content_hash,
            agreement_json: &agreement_json,
            idempotency_key: key,
            request_hash: &request_hash,
            product_version: choice.product.version,
            now,
        };
        match orders::open(&mut tx, &s.secrets, &new, &actor).await? {
            Ok(_) => {
                tx.commit().await?;
                tracing::info!(%order_no, status = OrderState::PendingReview.code(), "order created");
                let created =
                    s.db.order_by_idempotency_key(&borrower.id, key)
                        .await?
                        .ok_or_else(|| {
                            anyhow::anyhow!("the order {order_no} just created is missing")
                        })?;
                return Ok(Confirmed::Created(created));
            }
            Err(_conflict) => {
                // The transaction is spoilt on PostgreSQL: drop it, then see which index refused the order.
                drop(tx);
                if let Some(existing) = s.db.order_by_idempotency_key(&borrower.id, key).await? {
                    return replay(existing);
                }
                if s.db.open_order(&borrower.id).await?.is_some() {
                    return Err(Refusal::OpenOrderExists.into());
                }
                tracing::warn!(%order_no, "order number taken; retrying with another");
            }
        }
    }
    Err(anyhow::anyhow!("no free order number after 4 attempts").into())
}
