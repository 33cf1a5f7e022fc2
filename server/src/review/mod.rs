//! The operators' work on orders (PRODUCT.md §6): the review queue, an order as an operator sees it (the borrower's
//! certification masked, or unmasked for reviewers with every such view audited), approving and rejecting with a
//! reason through the order lifecycle, claims on applications, and the audit search. Every function checks the operator's roles first.

use kilat_domain::{Code, Currency, Market, OrderEvent, OrderState};

use crate::auth::operators::{Operator, Role};
use crate::auth::{Borrower, unseal_borrower};
use crate::certification::{Certification, StepData, age_from, income_period, min_income};
use crate::content::EnumKind;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::i18n::{self, Lang};
use crate::orders::{self, Actor, OrderDetail};
use crate::services::Services;
use crate::servicing;
use crate::store::audit::NewAuditEntry;

/// Who may read the queue and orders; who decides.
pub const QUEUE_ROLES: &[Role] = &[Role::Reviewer, Role::Support];
pub const ORDER_ROLES: &[Role] = &[Role::Reviewer, Role::Finance, Role::Support];
pub const DECIDE_ROLES: &[Role] = &[Role::Reviewer];

/// The longest reason or note an operator may give.
pub const MAX_REASON_CHARS: usize = 500;
/// A queue page's size when none is asked, and the largest asked.
pub const QUEUE_PAGE_SIZE: i64 = 50;
pub const QUEUE_MAX_PAGE_SIZE: i64 = 100;
/// How long a reviewer's claim on an application lasts (claiming again extends it): a reviewer who leaves does not
/// block it for longer.
pub const CLAIM_MS: i64 = 30 * 60 * 1000;
/// Who may claim and release applications; an admin may release anybody's claim.
pub const CLAIM_ROLES: &[Role] = &[Role::Reviewer];
pub const RELEASE_ROLES: &[Role] = &[Role::Reviewer, Role::Admin];
/// The borrower's other orders listed with one of theirs.
const HISTORY_LIMIT: i64 = 50;

/// A live claim: who holds an application in review, and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub operator_id: String,
    pub username: String,
    /// Epoch ms.
    pub until: i64,
}

impl Claim {
    /// The claim stored, if it is still live at `now`.
    fn live(
        operator_id: Option<String>,
        username: Option<String>,
        until: Option<i64>,
        now: i64,
    ) -> Option<Self> {
        match (operator_id, until) {
            (Some(operator_id), Some(until)) if until > now => Some(Self {
                username: username.unwrap_or_else(|| operator_id.clone()),
                operator_id,
                until,
            }),
            _ => None,
        }
    }
}

/// One order waiting for review.
pub struct QueueItem {
    pub order_no: String,
    pub borrower_id: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: Currency,
    pub amount: i64,
    pub apr: i64,
    pub apr_display: String,
    pub created_at: i64,
    /// Whole seconds since the borrower confirmed.
    pub age_secs: i64,
    pub claim: Option<Claim>,
}

/// A page of the review queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// From 1.
    pub number: i64,
    pub size: i64,
}

impl Default for Page {
    fn default() -> Self {
        Self {
            number: 1,
            size: QUEUE_PAGE_SIZE,
        }
    }
}

/// The review queue of a market, one page: orders in `pending_review`, oldest first, with their claims. Nothing is
/// decrypted: the phone is the masked one written with the borrower.
pub async fn queue(
    s: &Services,
    op: &Operator,
    market: Market,
    page: Page,
) -> Result<Vec<QueueItem>, Error> {
    op.require_any(QUEUE_ROLES)?;
    op.require_market(market)?;
    let now = s.clock.now_ms();
    let offset = (page.number - 1).max(0).saturating_mul(page.size);
    Ok(s.db
        .orders_in_status(market, OrderState::PendingReview, offset, page.size)
        .await?
        .into_iter()
        .map(|row| QueueItem {
            claim: Claim::live(
                row.claimed_by,
                row.claimed_by_username,
                row.claimed_until,
                now,
            ),
            phone_masked: row.phone_masked,
            age_secs: (now - row.created_at).max(0) / 1000,
            order_no: row.order_no,
            borrower_id: row.borrower_id,
            product_code: row.product_code,
            product_name: row.product_name,
            term_code: row.term_code,
            currency: row.currency,
            amount: row.amount,
            apr: row.apr,
            apr_display: row.apr_display,
            created_at: row.created_at,
        })
        .collect())
}

/// How many applications wait in one market, and how many of them a reviewer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketCount {
    pub market: Market,
    pub waiting: i64,
    pub claimed: i64,
}

/// The review queue's counts, per market the operator sees (zero when none waits).
pub async fn queue_counts(s: &Services, op: &Operator) -> Result<Vec<MarketCount>, Error> {
    op.require_any(QUEUE_ROLES)?;
    let counts = s.db.review_counts(s.clock.now_ms()).await?;
    Ok(op
        .markets()
        .map(|market| {
            let found = counts.iter().find(|c| c.market == market.code());
            MarketCount {
                market,
                waiting: found.map_or(0, |c| c.total),
                claimed: found.map_or(0, |c| c.claimed),
            }
        })
        .collect())
}

/// The borrower's income as a reviewer reads it: a month's and a year's, whatever period the market stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Income {
    pub currency: Currency,
    pub monthly: i64,
    pub yearly: i64,
    /// The market's minimum for a loan, a month's and a year's.
    pub minimum_monthly: i64,
    pub minimum_yearly: i64,
}

impl Income {
    /// From the stored figure (a month's in India, a year's in Indonesia: `income_period`).
    pub fn of(market: Market, stored: i64) -> Self {
        let per_month = |amount: i64| match income_period(market) {
            "year" => (amount / 12, amount),
            _ => (amount, amount.saturating_mul(12)),
        };
        let (monthly, yearly) = per_month(stored);
        let (minimum_monthly, minimum_yearly) = per_month(min_income(market));
        Self {
            currency: market.currency(),
            monthly,
            yearly,
            minimum_monthly,
            minimum_yearly,
        }
    }
}

/// The certification's codes in words (English: the console's language), with the age and the income.
#[derive(Debug, Clone, Default)]
pub struct Picture {
    /// Whole years on the market's today.
    pub age: Option<i32>,
    pub income: Option<Income>,
    /// Field → label: `gender`, `education`, `maritalStatus`, `residenceType`, `region`, `city`, `employmentType`,
    /// `contact1Relation`, `contact2Relation`, `bank`.
    pub labels: Vec<(&'static str, String)>,
}

fn picture_of(s: &Services, market: Market, steps: &[(StepData, i64)]) -> Picture {
    let mut picture = Picture::default();
    let label = |kind, code: &str| crate::content::reference().label(market, kind, code, Lang::En);
    for (data, _) in steps {
        match data {
            StepData::Base(base) => {
                picture.age = age_from(&base.date_of_birth, s.clock.today(market));
                picture
                    .labels
                    .push(("gender", label(EnumKind::Gender, &base.gender)));
            }
            StepData::Personal(p) => {
                picture
                    .labels
                    .push(("education", label(EnumKind::Education, &p.education)));
                picture.labels.push((
                    "maritalStatus",
                    label(EnumKind::MaritalStatus, &p.marital_status),
                ));
                picture.labels.push((
                    "residenceType",
                    label(EnumKind::ResidenceType, &p.residence_type),
                ));
                if let Some((region, city)) =
                    crate::content::reference().place(market, &p.region_code, &p.city_code)
                {
                    picture.labels.push(("region", region.to_owned()));
                    picture.labels.push(("city", city.to_owned()));
                }
            }
            StepData::Job(job) => {
                picture.labels.push((
                    "employmentType",
                    label(EnumKind::EmploymentType, &job.employment_type),
                ));
                picture.income = Some(Income::of(market, job.income));
            }
            StepData::Extended(x) => {
                picture.labels.push((
                    "contact1Relation",
                    label(EnumKind::Relation, &x.contact1_relation),
                ));
                picture.labels.push((
                    "contact2Relation",
                    label(EnumKind::Relation, &x.contact2_relation),
                ));
            }
            StepData::Bank(bank) => {
                if let Some(name) = crate::content::reference().bank_name(market, &bank.bank_code) {
                    picture.labels.push(("bank", name.to_owned()));
                }
            }
        }
    }
    picture
}

/// One of the borrower's values found on another borrower.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// `idNumber`, `phone`, `contact1Phone`, `contact2Phone` or `bankAccount`: this borrower's field.
    pub field: String,
    /// `id`, `phone` or `bank`.
    pub kind: String,
    pub other_borrower_id: String,
    pub other_field: String,
    pub other_order_no: Option<String>,
    pub other_market: Market,
}

/// Another order of the same borrower, with its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorOrder {
    pub order_no: String,
    pub product_name: String,
    pub currency: Currency,
    pub amount: i64,
    pub status: OrderState,
    pub created_at: i64,
    pub closed_at: Option<i64>,
    /// The longest time the loan was overdue, in days (counted as the overdue job does: the first day overdue is
    /// day 1); zero when never.
    pub days_late: i64,
}

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The longest overdue spell of each order, in days, from the statuses its orders entered (time order per order).
fn days_late(statuses: &[crate::store::review::StatusEntered], now: i64) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for (i, entered) in statuses.iter().enumerate() {
        if entered.status != OrderState::Overdue.code() {
            continue;
        }
        let end = statuses
            .get(i + 1)
            .filter(|next| next.order_id == entered.order_id)
            .map_or(now, |next| next.at);
        let days = (end - entered.at).max(0) / DAY_MS + 1;
        match out.iter_mut().find(|(id, _)| *id == entered.order_id) {
            Some((_, longest)) => *longest = (*longest).max(days),
            None => out.push((entered.order_id.clone(), days)),
        }
    }
    out
}

/// An order as an operator sees it.
pub struct OrderView {
    pub detail: OrderDetail,
    /// The rejection's reason, which the borrower reads; null otherwise.
    pub review_reason: Option<String>,
    /// The approval's note for the team (never shown to the borrower).
    pub review_note: Option<String>,
    pub borrower_id: String,
    pub phone_masked: String,
    /// Each certification step done, with its completion time.
    pub certification: Vec<(StepData, i64)>,
    /// True when ID and account numbers are shown in full (reviewers); the view was then audited.
    pub unmasked: bool,
    /// Once paid out: the payout, the plan replayed from the ledger, the payments and the ledger.
    pub loan: Option<servicing::LoanRecord>,
    pub picture: Picture,
    pub duplicates: Vec<Duplicate>,
    /// The borrower's other orders, newest first.
    pub history: Vec<PriorOrder>,
    pub claim: Option<Claim>,
    /// For finance, once approved: where the loan is (or was) paid to, in full; the view was then audited.
    pub beneficiary: Option<servicing::payout::Beneficiary>,
}

/// One order with its KFS, timeline and the borrower's certification. Reviewers see ID and account numbers in full,
/// and each such view is written to the audit trail (`view_unmasked`) before the data is returned; the other roles
/// get them masked. With it, the borrower's whole picture: labels, age and income, their other orders and the
/// values of theirs found on other borrowers (by keyed hash, nothing decrypted).
pub async fn order(s: &Services, op: &Operator, order_no: &str) -> Result<OrderView, Error> {
    op.require_any(ORDER_ROLES)?;
    let row = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let borrower = borrower_of(s, &row.borrower_id).await?;
    let unmasked = op.has(Role::Reviewer);
    if unmasked {
        let mut tx = s.db.begin().await?;
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "operator",
            actor_id: Some(&op.id),
            action: "view_unmasked",
            entity: "order",
            entity_id: &row.id,
            before_json: None,
            after_json: None,
            at: s.clock.now_ms(),
        })
        .await?;
        tx.commit().await?;
    }
    let review_reason = row.review_reason.clone();
    // A deleted account (docs/ACCOUNT.md) has no phone or certification left; its loan records stay.
    let (phone_masked, steps): (String, Vec<(StepData, i64)>) = match &borrower {
        Some(borrower) => (
            borrower.phone.masked(),
            Certification::load(s, borrower)
                .await?
                .steps_with_times()
                .collect(),
        ),
        None => (
            i18n::text(Lang::En, "account.erased").to_owned(),
            Vec::new(),
        ),
    };
    let now = s.clock.now_ms();
    let picture = picture_of(s, row.market, &steps);
    let duplicates =
        s.db.duplicates_of(&row.borrower_id)
            .await?
            .into_iter()
            .filter_map(|d| {
                let other_market = Market::from_code(&d.other_market)?;
                // Another company's borrower is not shown to an operator of one market.
                op.may_see(other_market).then_some(())?;
                Some(Duplicate {
                    other_market,
                    field: d.field,
                    kind: d.kind,
                    other_borrower_id: d.other_borrower_id,
                    other_field: d.other_field,
                    other_order_no: d.other_order_no,
                })
            })
            .collect();
    let late = days_late(&s.db.statuses_of_borrower(&row.borrower_id).await?, now);
    let history =
        s.db.orders_of_borrower(&row.borrower_id, HISTORY_LIMIT)
            .await?
            .into_iter()
            .filter(|h| h.id != row.id)
            .map(|h| PriorOrder {
                days_late: late
                    .iter()
                    .find(|(id, _)| *id == h.id)
                    .map_or(0, |(_, d)| *d),
                order_no: h.order_no,
                product_name: h.product_name,
                currency: h.currency,
                amount: h.amount,
                status: h.status,
                created_at: h.created_at,
                closed_at: h.closed_at,
            })
            .collect();
    let meta = s.db.review_meta(&row.id).await?;
    let claim = Claim::live(
        meta.claimed_by,
        meta.claimed_by_username,
        meta.claimed_until,
        now,
    );
    let loan = servicing::record(s, row.clone()).await?;
    let beneficiary = if row.status == OrderState::Approved || loan.is_some() {
        servicing::payout::beneficiary_for_finance(s, op, &row).await?
    } else {
        None
    };
    Ok(OrderView {
        loan,
        beneficiary,
        borrower_id: row.borrower_id.clone(),
        detail: orders::detail_of(s, row).await?,
        review_reason,
        review_note: meta.review_note,
        phone_masked,
        certification: steps,
        unmasked,
        picture,
        duplicates,
        history,
        claim,
    })
}

/// A reviewer's decision on an order in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
}

/// What a reviewer writes with a decision: a note for the team (optional, never shown to the borrower), and on a
/// rejection the reason the borrower reads (required).
#[derive(Debug, Clone, Copy, Default)]
pub struct DecisionText<'a> {
    pub note: Option<&'a str>,
    pub reason: Option<&'a str>,
}

/// Trimmed, and `None` when empty.
fn clean(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// Approves or rejects an order through the lifecycle (status, timeline and audit, with the operator as actor) and
/// stores the note or reason, all in one transaction. An application another reviewer holds a live claim on is
/// refused (`application_claimed`), checked and cleared in that transaction.
pub async fn decide(
    s: &Services,
    op: &Operator,
    order_no: &str,
    decision: Decision,
    text: DecisionText<'_>,
) -> Result<OrderState, Error> {
    op.require_any(DECIDE_ROLES)?;
    let mut errors = FieldErrors::default();
    let (note, reason) = match decision {
        // An approval has no words for the borrower: a `reason` sent with one (what clients sent before the note
        // existed) is kept as the team's note, never shown to the borrower.
        Decision::Approve => match clean(text.note) {
            Some(note) => (Some(("note", note)), None),
            None => (clean(text.reason).map(|r| ("reason", r)), None),
        },
        Decision::Reject => {
            let reason = clean(text.reason);
            if reason.is_none() {
                errors.add("reason", FieldProblem::required());
            }
            (
                clean(text.note).map(|n| ("note", n)),
                reason.map(|r| ("reason", r)),
            )
        }
    };
    for (field, value) in [note, reason].into_iter().flatten() {
        if value.chars().count() > MAX_REASON_CHARS {
            errors.add(field, FieldProblem::too_long(MAX_REASON_CHARS));
        }
    }
    let (note, reason) = (note.map(|(_, n)| n), reason.map(|(_, r)| r));
    errors.into_result()?;
    let row = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let event = match decision {
        Decision::Approve => OrderEvent::Approve,
        Decision::Reject => OrderEvent::Reject,
    };
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if !tx.take_claim_for_decision(&row.id, &op.id, now).await? {
        tx.rollback().await?;
        return Err(Refusal::ApplicationClaimed.into());
    }
    let actor = Actor::Operator(op.id.clone());
    let texts = orders::DecisionTexts { reason, note };
    let next = orders::apply_decision_in(&mut tx, &row.id, event, &actor, now, texts).await?;
    tx.set_review_note(&row.id, note).await?;
    if let Some(reason) = reason {
        tx.set_review_reason(&row.id, reason).await?;
    }
    tx.commit().await?;
    Ok(next)
}

/// Claims an application in review for the operator, for [`CLAIM_MS`] from now (again by the holder: extended).
/// Another reviewer's live claim refuses it (`application_claimed`); an order not in review is `invalid_transition`.
/// Audited (`order.claim`) in the same transaction.
pub async fn claim(s: &Services, op: &Operator, order_no: &str) -> Result<Claim, Error> {
    op.require_any(CLAIM_ROLES)?;
    let row = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    if row.status != OrderState::PendingReview {
        return Err(Refusal::InvalidTransition.into());
    }
    let now = s.clock.now_ms();
    let until = now + CLAIM_MS;
    let mut tx = s.db.begin().await?;
    if !tx.claim_order(&row.id, &op.id, now, until).await? {
        tx.rollback().await?;
        // Decided meanwhile, or held by another.
        return Err(match s.db.order_by_no(&row.order_no).await? {
            Some(now_row) if now_row.status != OrderState::PendingReview => {
                Refusal::InvalidTransition.into()
            }
            _ => Refusal::ApplicationClaimed.into(),
        });
    }
    let after = serde_json::json!({"claimedBy": op.id, "claimedUntil": until}).to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "order.claim",
        entity: "order",
        entity_id: &row.id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(Claim {
        operator_id: op.id.clone(),
        username: op.username.clone(),
        until,
    })
}

/// Releases a claim: a reviewer their own, an admin anybody's. Nothing to release (no live claim, or another's for a
/// reviewer who is not an admin) is refused: `application_claimed` when another holds it, `not_found` when nobody
/// does. Audited (`order.release`) in the same transaction.
pub async fn release(s: &Services, op: &Operator, order_no: &str) -> Result<(), Error> {
    op.require_any(RELEASE_ROLES)?;
    let row = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let now = s.clock.now_ms();
    let holder = (!op.has(Role::Admin)).then_some(op.id.as_str());
    let before = s.db.review_meta(&row.id).await?;
    let mut tx = s.db.begin().await?;
    if !tx.release_claim(&row.id, holder, now).await? {
        tx.rollback().await?;
        let held = Claim::live(before.claimed_by, None, before.claimed_until, now);
        return Err(match held {
            Some(claim) if claim.operator_id != op.id => Refusal::ApplicationClaimed.into(),
            _ => Error::NotFound,
        });
    }
    let before_json =
        serde_json::json!({"claimedBy": before.claimed_by, "claimedUntil": before.claimed_until})
            .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "order.release",
        entity: "order",
        entity_id: &row.id,
        before_json: Some(&before_json),
        after_json: None,
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(())
}

/// An order's borrower, or `None` when they deleted their account (its phone is a tombstone: nothing to unseal).
async fn borrower_of(s: &Services, borrower_id: &str) -> Result<Option<Borrower>, Error> {
    let row =
        s.db.borrower_by_id(borrower_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("an order's borrower {borrower_id} is missing"))?;
    if row.phone_enc.is_empty() {
        return Ok(None);
    }
    Ok(Some(unseal_borrower(&s.secrets, row)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::review::StatusEntered;

    fn entered(order_id: &str, status: &str, day: i64) -> StatusEntered {
        StatusEntered {
            order_id: order_id.into(),
            status: status.into(),
            at: day * DAY_MS,
        }
    }

    #[test]
    fn days_late_is_the_longest_overdue_spell_counting_the_first_day_as_one() {
        let statuses = [
            entered("a", "disbursed", 0),
            entered("a", "overdue", 31),
            entered("a", "disbursed", 33),
            entered("a", "overdue", 60),
            entered("a", "repaid", 66),
            entered("b", "disbursed", 0),
            entered("b", "overdue", 10),
            entered("c", "rejected", 1),
        ];
        // b is still overdue: counted to now.
        let late = days_late(&statuses, 14 * DAY_MS);
        assert_eq!(late, [("a".to_owned(), 7), ("b".to_owned(), 5)]);
    }

    #[test]
    fn income_reads_a_month_and_a_year_whatever_the_market_stores() {
        let india = Income::of(Market::India, 4_500_000);
        assert_eq!((india.monthly, india.yearly), (4_500_000, 54_000_000));
        assert_eq!(india.minimum_monthly, 1_200_000);
        let indonesia = Income::of(Market::Indonesia, 9_000_000_000);
        assert_eq!(
            (indonesia.monthly, indonesia.yearly),
            (750_000_000, 9_000_000_000)
        );
        assert_eq!(indonesia.minimum_yearly, 500_000_000);
    }
}
