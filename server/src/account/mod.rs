//! The borrower's account as a whole: the "me" menu served by the server, deleting the account (refused while money
//! is owed; otherwise every session revoked and personal data erased in one transaction, the loan records kept under
//! a pseudonymous id), the data export, and the PDF documents of each loan (docs/ACCOUNT.md).

pub mod documents;
pub mod export;
mod pdf;

use std::collections::BTreeMap;

use kilat_domain::{Currency, Money, OrderState};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::auth::{Borrower, phone_limit_keys};
use crate::certification::Certification;
use crate::error::{Error, Refusal};
use crate::i18n::{self, Lang, format_money};
use crate::infra::limits;
use crate::orders;
use crate::services::Services;
use crate::servicing;

/// What a menu entry does when tapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MenuAction {
    /// Opens `route` in the app.
    Navigate,
    /// Signs out (`POST /borrower/logout`).
    Logout,
}

/// One entry of the "me" menu.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MenuEntry {
    /// Stable name of the entry (`loans`, `bank_card`, `customer_service`, `complaints`, `about`, `privacy`,
    /// `delete_account`, `logout`).
    pub key: String,
    /// The label in the request's language.
    pub title: String,
    /// The app's route, relative to `/app`.
    pub route: String,
    pub action: MenuAction,
    /// True for an entry shown as a warning (deleting the account).
    pub danger: bool,
}

/// The entries of the "me" menu, in order: `(key, title's catalog key, route, action, danger)`. Served by the server
/// so that they can change without a release of the app.
const MENU: &[(&str, &str, &str, MenuAction, bool)] = &[
    (
        "loans",
        "menu.loans",
        "/orders",
        MenuAction::Navigate,
        false,
    ),
    (
        "bank_card",
        "menu.bank_card",
        "/bank-card",
        MenuAction::Navigate,
        false,
    ),
    (
        "customer_service",
        "menu.customer_service",
        "/customer-service",
        MenuAction::Navigate,
        false,
    ),
    (
        "complaints",
        "menu.complaints",
        "/complaints",
        MenuAction::Navigate,
        false,
    ),
    ("about", "menu.about", "/about", MenuAction::Navigate, false),
    (
        "privacy",
        "menu.privacy",
        "/privacy",
        MenuAction::Navigate,
        false,
    ),
    (
        "permissions",
        "menu.permissions",
        "/permissions",
        MenuAction::Navigate,
        false,
    ),
    (
        "delete_account",
        "menu.delete_account",
        "/account/delete",
        MenuAction::Navigate,
        true,
    ),
    ("logout", "menu.logout", "/login", MenuAction::Logout, false),
];

/// The "me" menu in `lang`.
pub fn menu(lang: Lang) -> Vec<MenuEntry> {
    MENU.iter()
        .map(|&(key, title, route, action, danger)| MenuEntry {
            key: key.to_owned(),
            title: i18n::text(lang, title).to_owned(),
            route: route.to_owned(),
            action,
            danger,
        })
        .collect()
}

/// Why an account cannot be deleted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeletionBlocker {
    /// A paid-out loan still owes money: repay it first.
    MoneyOutstanding,
    /// An application not yet paid out: withdraw it (or wait for the decision) first.
    OpenApplication,
    /// A payment of a closed loan not settled yet: a UTR finance has still to check, money held, or money owed back to
    /// the borrower. The account keeps the bank account that money goes back to until it is settled.
    PaymentUnsettled,
}

/// Whether the account can be deleted now, and if not, why and how much is owed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeletionCheck {
    pub allowed: bool,
    /// Null when allowed.
    #[schema(required = true)]
    pub blocker: Option<DeletionBlocker>,
    /// The open order in the way; null when allowed.
    #[schema(required = true)]
    pub order_no: Option<String>,
    /// What is owed today in minor units, from the money engine (zero unless `money_outstanding`).
    pub outstanding: i64,
    pub currency: Currency,
}

fn currency_of(borrower: &Borrower) -> Currency {
    match borrower.market {
        kilat_domain::Market::India => Currency::Inr,
        kilat_domain::Market::Indonesia => Currency::Idr,
    }
}

/// What stands in the way of deleting, judged from the open order (if any): its balances replayed by the money
/// engine when paid out.
async fn blocker_of(
    s: &Services,
    borrower: &Borrower,
    open: Option<(String, OrderState)>,
) -> Result<Option<(DeletionBlocker, String, Money)>, Error> {
    let Some((order_no, status)) = open else {
        return Ok(None);
    };
    match status {
        OrderState::Disbursed | OrderState::Overdue => {
            let loan = servicing::own_loan(s, borrower, &order_no).await?;
            let owed = loan
                .balances
                .outstanding
                .total()
                .map_err(|e| Error::Internal(e.into()))?;
            Ok(Some((DeletionBlocker::MoneyOutstanding, order_no, owed)))
        }
        _ => Ok(Some((
            DeletionBlocker::OpenApplication,
            order_no,
            Money::ZERO,
        ))),
    }
}

/// Whether the borrower may delete their account now (the delete screen asks before offering the button).
pub async fn deletion_check(s: &Services, borrower: &Borrower) -> Result<DeletionCheck, Error> {
    let open =
        s.db.open_order(&borrower.id)
            .await?
            .map(|o| (o.order_no, o.status));
    let blocker = match blocker_of(s, borrower, open).await? {
        Some(blocker) => Some(blocker),
        None => {
            s.db.unsettled_payment_of(&borrower.id, s.clock.now_ms())
                .await?
                .map(|order_no| (DeletionBlocker::PaymentUnsettled, order_no, Money::ZERO))
        }
    };
    Ok(DeletionCheck {
        allowed: blocker.is_none(),
        blocker: blocker.as_ref().map(|b| b.0),
        order_no: blocker.as_ref().map(|b| b.1.clone()),
        outstanding: blocker.as_ref().map_or(0, |b| b.2.minor()),
        currency: currency_of(borrower),
    })
}

/// What a deletion did.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountDeleted {
    /// Epoch milliseconds.
    pub deleted_at: i64,
    /// Sessions ended, the caller's included.
    pub sessions_revoked: u64,
}

/// Deletes the borrower's account, in one transaction that holds their row: refused while an order is open (with
/// the amount owed when it is a paid-out loan) or a payment is unsettled (`payment_unsettled`: money finance has
/// still to check, hold or send back goes to the bank account the deletion would erase); otherwise every session is
/// revoked, the certification, sign-in codes and unsent reminders are deleted, the frozen agreements lose the
/// borrower's particulars, and the phone becomes a tombstone, so that signing in again with it starts a new, empty
/// account. Orders, loans, payments and the ledger stay, owned by the row's pseudonymous id, for the retention the
/// law requires (docs/ACCOUNT.md).
pub async fn delete(s: &Services, borrower: &Borrower) -> Result<AccountDeleted, Error> {
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let Some(phone_hash) = tx.lock_live_borrower(&borrower.id).await? else {
        return Err(Refusal::AccountDeleted.into());
    };
    let open = tx.open_orders_of(&borrower.id).await?;
    if let Some(order) = open.into_iter().next() {
        // Read again outside the transaction: the amount comes from the money engine's replay of the ledger. The row
        // lock is released first (SQLite: the write lock), so the replay's reads do not wait on it.
        tx.rollback().await?;
        let status = OrderState::try_from(order.status.clone())
            .map_err(|e| anyhow::anyhow!("order {}: {e}", order.order_no))?;
        return Err(
            match blocker_of(s, borrower, Some((order.order_no, status))).await? {
                Some((DeletionBlocker::MoneyOutstanding, _, owed)) => Error::MoneyOutstanding {
                    amount: format_money(owed, currency_of(borrower)),
                },
                _ => Refusal::OpenOrderExists.into(),
            },
        );
    }
    if tx
        .unsettled_payment_of_in_tx(&borrower.id, now)
        .await?
        .is_some()
    {
        return Err(Refusal::PaymentUnsettled.into());
    }
    let erased_label = i18n::text(Lang::of_market(borrower.market), "account.erased");
    for agreement in tx.agreements_of(&borrower.id).await? {
        if let Some(json) = agreement.agreement(&s.secrets)? {
            let redacted = orders::agreement::erase_party(&json, erased_label)?;
            tx.set_agreement_json(&s.secrets, &agreement.id, &redacted)
                .await?;
        }
    }
    let limit_keys = phone_limit_keys(&s.limits, &phone_hash);
    let erased = tx
        .erase_borrower(&borrower.id, &phone_hash, &limit_keys, now)
        .await?;
    tx.commit().await?;
    // The erased rows' old pages out of SQLite's log too, before the borrower is told their data is gone. The
    // deletion itself is done: a failure here is logged, and the next erasure's checkpoint takes these pages too.
    if let Err(e) = s.db.checkpoint().await {
        tracing::error!(error = %e, "checkpointing the database after an account's deletion");
    }
    // The images' files go once their rows are gone; a file that cannot be removed now is logged with its key (its
    // row is gone, so nothing serves it) for the operator to remove.
    for key in &erased.image_keys {
        if let Err(e) = s.files.delete(key).await {
            tracing::error!(%key, error = %e, "a deleted account's complaint image could not be removed");
        }
    }
    tracing::info!(
        borrower_id = %borrower.id,
        sessions = erased.sessions_revoked,
        steps = erased.certification_steps,
        codes = erased.login_codes,
        notifications = erased.notifications,
        images = erased.image_keys.len(),
        "account deleted"
    );
    Ok(AccountDeleted {
        deleted_at: now,
        sessions_revoked: erased.sessions_revoked,
    })
}

/// Everything the product holds about the borrower, decrypted for them, as one JSON document. Each section is a
/// key of the document; a capability that stores more about a borrower adds its section here.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DataExport {
    /// `kilat-export/1`.
    pub format: String,
    /// Epoch milliseconds.
    pub generated_at: i64,
    /// Section name → its records: `profile`, `certification`, `certificationLog`, `orders` (each with its accepted
    /// KFS, frozen agreement, timeline, loan plan, ledger, payments, rating, and what collections recorded: each
    /// contact with its outcome and note, each promise to pay), `sessions`, `notifications`,
    /// `complaints` (each message with its text and the photos sent with it, base64), `appRatings`, `location`,
    /// `device`, `pushTokens`, `appEvents`. Beside every time in epoch milliseconds (`createdAt`) the same time as
    /// people read it on the market's clock (`createdAtText`: "27 Nov 2026, 14:05 IST", "27 Des 2026, 14.05 WIB").
    #[schema(value_type = Object)]
    pub sections: BTreeMap<String, Value>,
    /// The same data as a page people read (HTML, photos included), in the borrower's language only: the app saves it
    /// beside the JSON file as `kilat-data-summary.html`.
    pub summary_html: String,
}

/// The most orders an export lists (far more than any borrower has).
const EXPORT_ORDERS: i64 = 1_000;

pub use crate::infra::limits::EXPORTS_PER_HOUR;

/// The borrower's data export (`GET /borrower/export`): at most [`EXPORTS_PER_HOUR`] in the hour from the first of
/// them, counted in the database so that the limit holds across servers (`429 rate_limited` with the seconds until
/// the hour ends).
pub async fn export(s: &Services, borrower: &Borrower) -> Result<DataExport, Error> {
    let now = s.clock.now_ms();
    // A turn among the exports built at once (their memory is bounded each, so together), before the borrower's
    // hourly count: a `server_busy` answer uses up none of it.
    let _turn = s.bounds.exports.enter().await?;
    limits::count(&s.db, &s.limits.exports_per_borrower, &borrower.id, now)
        .await?
        .map_err(limits::Refused::rate_limited)?;
    let mut sections = BTreeMap::new();
    sections.insert(
        "profile".to_owned(),
        json!({
            "id": borrower.id,
            "market": borrower.market,
            "phone": borrower.phone.e164(),
            "createdAt": borrower.created_at,
        }),
    );
    let certification: Vec<Value> = Certification::load(s, borrower)
        .await?
        .steps_with_times()
        .map(|(data, at)| json!({"step": data.step(), "completedAt": at, "data": data.to_view(false)}))
        .collect();
    sections.insert("certification".to_owned(), Value::Array(certification));
    let log: Vec<Value> =
        s.db.certification_log_of(&borrower.id)
            .await?
            .into_iter()
            .map(|l| json!({"step": l.step, "event": l.event, "at": l.at}))
            .collect();
    sections.insert("certificationLog".to_owned(), Value::Array(log));
    let mut orders_out = Vec::new();
    for listed in s.db.orders_of(&borrower.id, EXPORT_ORDERS).await? {
        let Some(order) = s.db.order_of(&borrower.id, &listed.order_no).await? else {
            continue;
        };
        orders_out.push(order_export(s, order).await?);
    }
    sections.insert("orders".to_owned(), Value::Array(orders_out));
    let sessions: Vec<Value> = s
        .db
        .sessions_of(&borrower.id)
        .await?
        .into_iter()
        .map(|x| json!({"createdAt": x.created_at, "lastSeenAt": x.last_seen_at, "revokedAt": x.revoked_at}))
        .collect();
    sections.insert("sessions".to_owned(), Value::Array(sessions));
    let notifications: Vec<Value> = s
        .db
        .reminders_of(&borrower.id)
        .await?
        .into_iter()
        .map(|n| {
            json!({"kind": n.kind, "installment": n.installment, "text": n.text, "status": n.status,
                "createdAt": n.created_at, "sentAt": n.sent_at})
        })
        .collect();
    sections.insert("notifications".to_owned(), Value::Array(notifications));
    export::add_sections(s, borrower, &mut sections).await?;
    let generated_at = s.clock.now_ms();
    let summary_html = export::summary_html(&sections, borrower.market, generated_at);
    for section in sections.values_mut() {
        export::add_readable_dates(section, borrower.market);
    }
    Ok(DataExport {
        format: "kilat-export/1".to_owned(),
        generated_at,
        sections,
        summary_html,
    })
}

fn parse_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

async fn order_export(s: &Services, order: crate::store::orders::OrderRow) -> Result<Value, Error> {
    let timeline: Vec<Value> =
        s.db.order_events(&order.id)
            .await?
            .into_iter()
            .map(|e| json!({"status": e.status, "event": e.event, "actor": e.actor, "at": e.at}))
            .collect();
    let loan = match s.db.loan(&order.id).await? {
        Some(loan) => {
            let ledger: Vec<Value> =
                s.db.ledger(&order.id)
                    .await?
                    .into_iter()
                    .map(|e| json!({"seq": e.seq, "entry": e.entry}))
                    .collect();
            json!({"payoutDate": loan.payout_date, "plan": parse_json(&loan.plan_json), "ledger": ledger})
        }
        None => Value::Null,
    };
    let payments: Vec<Value> = s
        .db
        .payments_of_order(&order.id)
        .await?
        .into_iter()
        .map(|p| {
            json!({"id": p.id, "choice": p.choice, "method": p.method, "installment": p.installment,
                "amount": p.amount, "currency": p.currency, "status": p.status, "reference": p.reference,
                "utr": p.utr, "receivedAmount": p.received_amount, "createdAt": p.created_at})
        })
        .collect();
    let rating =
        s.db.rating_of(&order.id)
            .await?
            .map(|r| json!({"score": r.score, "comment": r.comment, "createdAt": r.created_at}));
    let agreement = s.db.order_agreement(&s.secrets, &order.id).await?;
    // What collections recorded about the loan: each call or message with its outcome and note, and each promise.
    let (contacts, promises) = crate::collections::record_of_order(s, &order.id).await?;
    let contacts: Vec<Value> = contacts
        .into_iter()
        .map(|c| {
            json!({"createdAt": c.row.created_at, "channel": c.row.channel, "outcome": c.row.outcome,
                "localTime": c.row.local_time, "note": c.note})
        })
        .collect();
    let promises: Vec<Value> = promises
        .into_iter()
        .map(|p| {
            json!({"amount": p.amount, "currency": order.currency, "madeOn": p.made_on,
                "promisedOn": p.promised_on, "createdAt": p.created_at})
        })
        .collect();
    Ok(json!({
        "orderNo": order.order_no,
        "status": order.status,
        "market": order.market,
        "productName": order.product_name,
        "termCode": order.term_code,
        "amount": order.amount,
        "currency": order.currency,
        "createdAt": order.created_at,
        "reviewReason": order.review_reason,
        "acceptedKfs": parse_json(&order.kfs_json),
        "agreement": agreement.as_deref().map(parse_json),
        "timeline": timeline,
        "loan": loan,
        "payments": payments,
        "rating": rating,
        "collections": {"contacts": contacts, "promises": promises},
    }))
}
