//! Collections (PRODUCT.md §7; docs/API-CONSOLE.md, "Collections"): the overdue queue per market with each loan's days
//! past due, bucket and amounts (the borrower's own figures, from the loan's position the ledger keeps), the last reminder and its
//! delivery, the last contact and the latest promise to pay; contact attempts, allowed only within the market's
//! contact hours for a call, SMS or WhatsApp; promises to pay, whose state is read from the ledger's payments.
//!
//! Only the borrower is ever contacted: nothing here reads the certification (ID numbers, bank accounts, emergency
//! contacts). The `collections` role sees the borrower's phone masked, and in full on request, each such view audited.

use std::collections::{HashMap, HashSet};

use kilat_domain::{
    Code, Currency, EntryKind, InstallmentBalance, InstallmentStatus, LedgerEntry, LoanBalances,
    Market, Money, OrderState, Plan,
};
use time::{Date, Duration, OffsetDateTime};

use crate::auth::operators::{Operator, Role};
use crate::auth::unseal_phone;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::crypto::Binding;
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::collections::{
    BucketCounts, BucketDates, ContactRow, NewContact, NewPromise, PaymentCreditRow, PromiseRow,
    QueueFilter, ReminderRow, WaitingPaymentRow,
};
use crate::store::loans::{date_code, parse_date};
use crate::store::orders::OrderRow;

/// Who works the queue: reads it, logs contacts and promises, sees the borrower's full phone (audited).
pub const WORK_ROLES: &[Role] = &[Role::Collections, Role::Admin];
/// Who reads a loan's contact history (the order view shows it to everyone who may open an order).
pub const HISTORY_ROLES: &[Role] = &[
    Role::Collections,
    Role::Admin,
    Role::Reviewer,
    Role::Finance,
    Role::Support,
];

/// The longest note with a contact.
pub const MAX_NOTE_CHARS: usize = 1000;
/// How far ahead of the market's today a promise may be dated.
pub const PROMISE_MAX_DAYS: i64 = 30;
/// Queue rows per page, by default and at most.
pub const PAGE_SIZE: i64 = 50;
pub const MAX_PAGE_SIZE: i64 = 200;

/// A days-past-due bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bucket {
    /// 1 to 7 days.
    D1To7,
    D8To30,
    D31To60,
    D61To90,
    /// 91 days and more.
    Over90,
}

impl Bucket {
    pub const ALL: [Bucket; 5] = [
        Bucket::D1To7,
        Bucket::D8To30,
        Bucket::D31To60,
        Bucket::D61To90,
        Bucket::Over90,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Bucket::D1To7 => "1-7",
            Bucket::D8To30 => "8-30",
            Bucket::D31To60 => "31-60",
            Bucket::D61To90 => "61-90",
            Bucket::Over90 => "90+",
        }
    }

    pub fn parse(code: &str) -> Option<Bucket> {
        Bucket::ALL.into_iter().find(|b| b.code() == code.trim())
    }

    /// The bucket of a loan `days` past due; none for a loan not past due.
    pub fn of(days: i64) -> Option<Bucket> {
        match days {
            i64::MIN..=0 => None,
            1..=7 => Some(Bucket::D1To7),
            8..=30 => Some(Bucket::D8To30),
            31..=60 => Some(Bucket::D31To60),
            61..=90 => Some(Bucket::D61To90),
            _ => Some(Bucket::Over90),
        }
    }

    /// The days past due it spans (`None`: no upper end).
    fn days(self) -> (i64, Option<i64>) {
        match self {
            Bucket::D1To7 => (1, Some(7)),
            Bucket::D8To30 => (8, Some(30)),
            Bucket::D31To60 => (31, Some(60)),
            Bucket::D61To90 => (61, Some(90)),
            Bucket::Over90 => (91, None),
        }
    }
}

/// How an agent reached for the borrower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Call,
    Sms,
    Whatsapp,
    Email,
}

impl Channel {
    pub const ALL: [Channel; 4] = [
        Channel::Call,
        Channel::Sms,
        Channel::Whatsapp,
        Channel::Email,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Channel::Call => "call",
            Channel::Sms => "sms",
            Channel::Whatsapp => "whatsapp",
            Channel::Email => "email",
        }
    }

    pub fn parse(code: &str) -> Option<Channel> {
        let code = code.trim().to_ascii_lowercase();
        Channel::ALL.into_iter().find(|c| c.code() == code)
    }
}

/// What came of a contact attempt.
pub const OUTCOMES: [&str; 8] = [
    "reached",
    "no_answer",
    "busy",
    "wrong_number",
    "refused",
    "promised",
    "disputed",
    "left_message",
];

/// The market's contact hours and where its clock stands.
#[derive(Debug, Clone)]
pub struct ContactHours {
    pub market: Market,
    /// Local hours, `from` included, `until` excluded (08:00 to 19:00 means 08:00:00 to 18:59:59).
    pub from: u8,
    pub until: u8,
    /// The market's local time now.
    pub local_now: OffsetDateTime,
    pub open: bool,
}

impl ContactHours {
    pub fn now_hhmm(&self) -> String {
        format!(
            "{:02}:{:02}",
            self.local_now.hour(),
            self.local_now.minute()
        )
    }

    pub fn timezone(&self) -> &'static str {
        match self.market {
            Market::India => "Asia/Kolkata",
            Market::Indonesia => "Asia/Jakarta",
        }
    }
}

/// The contact hours of `market` at the server's clock: the reminders' sending hours (PRODUCT.md §6, §7), one rule.
pub fn contact_hours(s: &Services, market: Market) -> ContactHours {
    contact_hours_at(market, s.clock.now())
}

/// The contact hours of `market` at the instant `at`.
fn contact_hours_at(market: Market, at: OffsetDateTime) -> ContactHours {
    let (from, until) = crate::jobs::reminders::sending_hours(market);
    ContactHours {
        market,
        from,
        until,
        local_now: market.local_time(at),
        open: crate::jobs::reminders::may_send(market, at),
    }
}

/// When a contact was made: `HH:MM` of the market's today, not after the current minute (an attempt logged once the
/// call ended: 18:58 logged at 19:01); `None` (left out) is now. A time that is not one is a field error on
/// `attemptedAt`.
fn attempt_time(
    market: Market,
    now: OffsetDateTime,
    raw: Option<&str>,
    errors: &mut FieldErrors,
) -> OffsetDateTime {
    let Some(raw) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return now;
    };
    let local_now = market.local_time(now);
    let parsed = raw
        .split_once(':')
        .filter(|(h, m)| h.len() == 2 && m.len() == 2)
        .and_then(|(h, m)| time::Time::from_hms(h.parse().ok()?, m.parse().ok()?, 0).ok())
        .map(|t| local_now.replace_time(t))
        .filter(|at| *at <= local_now);
    match parsed {
        Some(at) => at,
        None => {
            errors.add("attemptedAt", FieldProblem::new("field.contact_time"));
            now
        }
    }
}

/// Where a loan stands on a business date: the borrower's own figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrears {
    /// The current due date of the oldest installment with something outstanding.
    pub oldest_due: Option<Date>,
    /// Days from it to today; 0 when not past due.
    pub days_past_due: i64,
    pub bucket: Option<Bucket>,
    /// What the installments past their due date still owe (each one's outstanding, as the borrower's plan shows it).
    pub amount_overdue: Money,
    /// Everything the loan still owes (the plan's `outstanding` total).
    pub outstanding: Money,
}

/// The arrears of a loan's balances on `today`.
pub fn arrears(balances: &LoanBalances, today: Date) -> Result<Arrears, Error> {
    let internal = |e: kilat_domain::Error| Error::Internal(e.into());
    let oldest_due = crate::ledger::arrears_date(balances);
    let days_past_due = oldest_due
        .map(|d| (today - d).whole_days())
        .filter(|d| *d > 0)
        .unwrap_or(0);
    let overdue: Vec<Money> = balances
        .installments
        .iter()
        .filter(|i| i.status(today) == InstallmentStatus::Overdue)
        .map(|i| i.outstanding.total())
        .collect::<Result<_, _>>()
        .map_err(internal)?;
    Ok(Arrears {
        oldest_due,
        days_past_due,
        bucket: Bucket::of(days_past_due),
        amount_overdue: Money::sum(&overdue).map_err(internal)?,
        outstanding: balances.outstanding.total().map_err(internal)?,
    })
}

/// The state of a promise to pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromiseState {
    /// Its date has not passed and the payments since it was made do not cover it yet.
    Open,
    /// The payments received from the day it was made to its date cover the amount (or the loan owes nothing more).
    Kept,
    /// Its date passed without that.
    Broken,
    /// Its date passed without that, but a payment the borrower made by then waits for finance (a UTR to check,
    /// money held): neither kept nor broken until finance decides.
    Waiting,
}

impl PromiseState {
    pub fn code(self) -> &'static str {
        match self {
            PromiseState::Open => "open",
            PromiseState::Kept => "kept",
            PromiseState::Broken => "broken",
            PromiseState::Waiting => "waiting",
        }
    }
}

/// A promise to pay with its state.
#[derive(Debug, Clone)]
pub struct Promise {
    pub row: PromiseRow,
    pub made_on: Date,
    pub promised_on: Date,
    /// Received towards it: the borrower's payments credited from `made_on` to `promised_on`.
    pub received: Money,
    pub state: PromiseState,
}

/// Cash a ledger entry received from the borrower and kept (its excess is refunded); a reversal of one takes it back.
fn cash_in(entries: &[LedgerEntry], entry: &LedgerEntry) -> i64 {
    let receives = |kind: EntryKind| {
        matches!(
            kind,
            EntryKind::Repayment
                | EntryKind::Payoff
                | EntryKind::CoolingOffExit
                | EntryKind::ExtensionFee
        )
    };
    let counts = match entry.kind {
        EntryKind::Reversal => entry
            .reverses
            .and_then(|seq| usize::try_from(seq).ok())
            .and_then(|seq| entries.get(seq))
            .is_some_and(|reversed| receives(reversed.kind)),
        kind => receives(kind),
    };
    if counts {
        entry.cash.minor() - entry.excess.minor()
    } else {
        0
    }
}

/// A promise's state on `today`, read from the loan's ledger: evaluated on every read, so it is never stale and
/// needs no job (docs/API-CONSOLE.md, "Collections"). Only money the borrower paid after the promise was recorded
/// counts towards it (a payment made that morning, or a UTR sent the day before and confirmed after the call, was not
/// the promise kept); such a payment made by the promise's date counts even when finance credits it after the date
/// ([`PaymentDays`]); while one waits for finance, a promise whose date passed is `waiting`, not broken.
pub fn promise_state(
    row: PromiseRow,
    entries: &[LedgerEntry],
    balances: &LoanBalances,
    payments: &PaymentDays,
    today: Date,
) -> Result<Promise, Error> {
    let made_on = parse_date(&row.made_on)?;
    let promised_on = parse_date(&row.promised_on)?;
    let within = |day: Date| day >= made_on && day <= promised_on;
    let after_promise = |at: i64| at >= row.created_at;
    // The ledger entries of payments made before the promise: neither they nor their reversals count.
    let earlier: HashSet<u64> = payments
        .credited
        .iter()
        .filter(|c| !after_promise(c.made_at))
        .map(|c| c.seq)
        .collect();
    let counted = |seq: usize, e: &LedgerEntry| {
        u64::try_from(seq).is_ok_and(|seq| !earlier.contains(&seq))
            && !e.reverses.is_some_and(|r| earlier.contains(&r))
    };
    let credited_in_time: i64 = entries
        .iter()
        .enumerate()
        .filter(|(seq, e)| within(e.on) && counted(*seq, e))
        .map(|(_, e)| cash_in(entries, e))
        .sum();
    let credited_later: i64 = payments
        .credited
        .iter()
        .filter(|c| after_promise(c.made_at) && c.made_on <= promised_on && c.on > promised_on)
        .map(|c| c.kept)
        .sum();
    let received = credited_in_time + credited_later;
    let waiting = payments
        .waiting
        .iter()
        .any(|w| after_promise(w.made_at) && w.made_on <= promised_on);
    // Nothing owed counts as kept only when the money that cleared the loan was paid by the promise's date: a loan
    // paid off weeks after a broken promise does not rewrite it as kept.
    let credited_after: i64 = entries
        .iter()
        .filter(|e| e.on > promised_on)
        .map(|e| cash_in(entries, e))
        .sum();
    let cleared_in_time = balances.outstanding.is_zero() && credited_after <= credited_later;
    let state = if received >= row.amount || cleared_in_time {
        PromiseState::Kept
    } else if today > promised_on && waiting {
        PromiseState::Waiting
    } else if today > promised_on {
        PromiseState::Broken
    } else {
        PromiseState::Open
    };
    Ok(Promise {
        row,
        made_on,
        promised_on,
        received: Money::from_minor(received.max(0)),
        state,
    })
}

/// What an order's payments tell its promises beyond the ledger's dates: the payments waiting for finance, and the
/// money credited, each with when it was made (epoch ms, and the market's day).
#[derive(Debug, Clone, Default)]
pub struct PaymentDays {
    pub waiting: Vec<Waiting>,
    pub credited: Vec<Credited>,
}

/// A payment waiting for finance.
#[derive(Debug, Clone)]
pub struct Waiting {
    pub made_at: i64,
    pub made_on: Date,
}

/// Money a payment brought, as the ledger credited it.
#[derive(Debug, Clone)]
pub struct Credited {
    /// The ledger entry's sequence number.
    pub seq: u64,
    pub made_at: i64,
    pub made_on: Date,
    /// The business day of the credit.
    pub on: Date,
    /// Minor units kept (received less what is owed back).
    pub kept: i64,
}

impl PaymentDays {
    /// One order's, from the rows of several orders.
    pub fn of(
        order_id: &str,
        market: Market,
        waiting: &[WaitingPaymentRow],
        credits: &[PaymentCreditRow],
    ) -> Result<PaymentDays, Error> {
        let day = |ms: i64| {
            OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
                .map(|at| market.local_date(at))
                .map_err(|e| Error::Internal(e.into()))
        };
        Ok(PaymentDays {
            waiting: waiting
                .iter()
                .filter(|w| w.order_id == order_id)
                .map(|w| {
                    Ok(Waiting {
                        made_at: w.paid_at,
                        made_on: day(w.paid_at)?,
                    })
                })
                .collect::<Result<_, Error>>()?,
            credited: credits
                .iter()
                .filter(|c| c.order_id == order_id)
                .map(|c| {
                    Ok(Credited {
                        seq: u64::try_from(c.seq).map_err(anyhow::Error::from)?,
                        made_at: c.made_at,
                        made_on: day(c.made_at)?,
                        on: parse_date(&c.on_date)?,
                        kept: c.cash - c.excess,
                    })
                })
                .collect::<Result<_, Error>>()?,
        })
    }
}

/// A contact attempt with its note in clear.
#[derive(Debug, Clone)]
pub struct Contact {
    pub row: ContactRow,
    pub note: Option<String>,
}

fn open_contact(s: &Services, row: ContactRow) -> Result<Contact, Error> {
    let note = match &row.note_enc {
        Some(sealed) => Some(
            s.secrets
                .decrypt(sealed, Binding::CollectionNote { id: &row.id })?,
        ),
        None => None,
    };
    Ok(Contact { row, note })
}

/// What collections recorded about one loan, for the borrower's data export: every contact with its note in clear,
/// oldest first, and every promise to pay. Who made them is left out (staff, not the borrower's data).
pub async fn record_of_order(
    s: &Services,
    order_id: &str,
) -> Result<(Vec<Contact>, Vec<PromiseRow>), Error> {
    let mut contacts =
        s.db.contacts_of(&[order_id])
            .await?
            .into_iter()
            .map(|row| open_contact(s, row))
            .collect::<Result<Vec<_>, _>>()?;
    contacts.sort_by(|a, b| (a.row.created_at, &a.row.id).cmp(&(b.row.created_at, &b.row.id)));
    let mut promises = s.db.promises_of(&[order_id]).await?;
    promises.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    Ok((contacts, promises))
}

/// One loan of the queue.
#[derive(Debug, Clone)]
pub struct QueueItem {
    pub order_no: String,
    pub market: Market,
    pub currency: Currency,
    pub product_name: String,
    pub status: String,
    /// The borrower's phone, masked; none once the account was deleted.
    pub phone_masked: Option<String>,
    pub arrears: Arrears,
    /// A payment of the loan waits for finance (a UTR to check, money held).
    pub payment_waiting: bool,
    pub last_reminder: Option<ReminderRow>,
    pub last_contact: Option<Contact>,
    pub promise: Option<Promise>,
}

/// A page of the queue with the market's bucket counts.
#[derive(Debug, Clone)]
pub struct QueuePage {
    pub market: Market,
    pub today: Date,
    pub hours: ContactHours,
    pub counts: BucketCounts,
    /// Loans matching the filter (all buckets, or the one chosen).
    pub total: i64,
    pub page: i64,
    pub page_size: i64,
    pub items: Vec<QueueItem>,
}

/// What the queue lists.
#[derive(Debug, Clone, Copy)]
pub struct QueueQuery {
    pub market: Market,
    pub bucket: Option<Bucket>,
    pub most_overdue_first: bool,
    pub page: i64,
    pub page_size: i64,
}

/// The due-date limits of the buckets on `today` (the queue's and the dashboard's one definition).
pub fn bucket_dates(today: Date) -> BucketDates {
    let ago = |days: i64| date_code(today - Duration::days(days));
    BucketDates {
        from_7: ago(7),
        from_30: ago(30),
        from_60: ago(60),
        from_90: ago(90),
        yesterday: ago(1),
    }
}

fn count_of(counts: &BucketCounts, bucket: Bucket) -> i64 {
    match bucket {
        Bucket::D1To7 => counts.d1_7,
        Bucket::D8To30 => counts.d8_30,
        Bucket::D31To60 => counts.d31_60,
        Bucket::D61To90 => counts.d61_90,
        Bucket::Over90 => counts.d90_plus,
    }
}

/// The overdue queue of one market on its business date: loans with an installment past its due date, most days past
/// due first (or fewest), a page at a time, with the count of each bucket. The filter, order and counts come from the
/// arrears index and the figures from each loan's stored position; no phone is unsealed.
pub async fn queue(s: &Services, op: &Operator, q: QueueQuery) -> Result<QueuePage, Error> {
    op.require_any(WORK_ROLES)?;
    let mut errors = FieldErrors::default();
    if q.page < 1 {
        errors.add("page", FieldProblem::new("field.unknown_choice"));
    }
    if !(1..=MAX_PAGE_SIZE).contains(&q.page_size) {
        errors.add(
            "pageSize",
            FieldProblem::new("field.too_many_items").with("max", MAX_PAGE_SIZE),
        );
    }
    errors.into_result()?;
    let market = op.require_market(q.market)?;
    let today = s.clock.today(market);
    let dates = bucket_dates(today);
    let counts = s.db.arrears_counts(market.code(), &dates).await?;
    let (due_from, due_to, total) = match q.bucket {
        None => (
            None,
            dates.yesterday.clone(),
            counts.d1_7 + counts.d8_30 + counts.d31_60 + counts.d61_90 + counts.d90_plus,
        ),
        Some(bucket) => {
            let (low, high) = bucket.days();
            (
                high.map(|h| date_code(today - Duration::days(h))),
                date_code(today - Duration::days(low)),
                count_of(&counts, bucket),
            )
        }
    };
    let rows =
        s.db.arrears_page(&QueueFilter {
            market: market.code(),
            due_from: due_from.as_deref(),
            due_to: &due_to,
            most_overdue_first: q.most_overdue_first,
            limit: q.page_size,
            offset: (q.page - 1).saturating_mul(q.page_size),
        })
        .await?;
    let ids: Vec<&str> = rows.iter().map(|r| r.order_id.as_str()).collect();
    // Each loan's newest of each only, read as such (not its whole history).
    let mut reminders = latest_by_order(s.db.latest_reminders_of(&ids).await?, |r| &r.order_id);
    let mut contacts = latest_by_order(s.db.latest_contacts_of(&ids).await?, |c| &c.order_id);
    let mut promises = latest_by_order(s.db.latest_promises_of(&ids).await?, |p| &p.order_id);
    let waiting = s.db.waiting_payments_of(&ids).await?;
    // Only a promise reads the money credited (by the day each payment was made).
    let promised: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| promises.contains_key(*id))
        .collect();
    let credits = s.db.payment_credits_of(&promised).await?;
    // Each loan's balances as its ledger last left them (its stored position): no ledger is read, but those of the
    // loans with a promise (whose state counts the payments since it was made) and of any loan without a position
    // yet (written before migration 0044), which is replayed.
    let to_read: Vec<&str> = rows
        .iter()
        .filter(|r| r.balances_json.is_none() || promises.contains_key(&r.order_id))
        .map(|r| r.order_id.as_str())
        .collect();
    let mut ledgers = s.db.ledgers(&to_read).await?;
    let unknown: Vec<&str> = rows
        .iter()
        .filter(|r| r.balances_json.is_none())
        .map(|r| r.order_id.as_str())
        .collect();
    let mut plans = s.db.plans_of(&unknown).await?;
    let mut items = Vec::with_capacity(rows.len());
    for row in &rows {
        let entries = match ledgers.remove(&row.order_id) {
            Some(stored) => crate::servicing::entries_of(stored)?,
            None => Vec::new(),
        };
        let balances: LoanBalances = match &row.balances_json {
            Some(json) => serde_json::from_str(json).map_err(anyhow::Error::from)?,
            None => {
                let json = plans.remove(&row.order_id).ok_or(Error::NotFound)?;
                let plan: Plan = serde_json::from_str(&json).map_err(anyhow::Error::from)?;
                crate::servicing::balances_of(&plan, &entries)?
            }
        };
        // The masked phone written with the sealed one: the page decrypts no phone (an erased account has none).
        let phone_masked = Some(row.phone_masked.clone()).filter(|p| !p.is_empty());
        let payments = PaymentDays::of(&row.order_id, market, &waiting, &credits)?;
        let payment_waiting = waiting.iter().any(|w| w.order_id == row.order_id);
        let promise = promises
            .remove(&row.order_id)
            .map(|p| promise_state(p, &entries, &balances, &payments, today))
            .transpose()?;
        items.push(QueueItem {
            order_no: row.order_no.clone(),
            market,
            currency: Currency::from_code(&row.currency).ok_or_else(|| {
                anyhow::anyhow!("order {}: currency {}", row.order_no, row.currency)
            })?,
            product_name: row.product_name.clone(),
            status: row.status.clone(),
            phone_masked,
            arrears: arrears(&balances, today)?,
            payment_waiting,
            last_reminder: reminders.remove(&row.order_id),
            last_contact: contacts
                .remove(&row.order_id)
                .map(|c| open_contact(s, c))
                .transpose()?,
            promise,
        });
    }
    Ok(QueuePage {
        market,
        today,
        hours: contact_hours(s, market),
        counts,
        total,
        page: q.page,
        page_size: q.page_size,
        items,
    })
}

/// The first (newest) row of each order in a list sorted newest first.
fn latest_by_order<T>(rows: Vec<T>, order: impl Fn(&T) -> &String) -> HashMap<String, T> {
    let mut out = HashMap::new();
    for row in rows {
        let key = order(&row).clone();
        out.entry(key).or_insert(row);
    }
    out
}

/// One loan as collections works it.
#[derive(Debug, Clone)]
pub struct Case {
    pub order: OrderRow,
    pub today: Date,
    pub hours: ContactHours,
    pub phone_masked: Option<String>,
    pub arrears: Arrears,
    pub installments: Vec<(InstallmentBalance, InstallmentStatus)>,
    pub contacts: Vec<Contact>,
    pub promises: Vec<Promise>,
    pub reminders: Vec<ReminderRow>,
    /// The loan's payments waiting for finance, oldest first: what they cover is not to be chased until finance
    /// decides.
    pub waiting: Vec<WaitingPaymentRow>,
}

/// The paid-out loan of an order, or not found.
async fn loan_of(
    s: &Services,
    op: &Operator,
    order_no: &str,
) -> Result<crate::servicing::Loan, Error> {
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    crate::servicing::load(s, order).await
}

/// A loan's collections panel: its figures, the borrower's phone masked, the contact log, the promises with their
/// state and the reminders sent. Never the certification.
pub async fn case(s: &Services, op: &Operator, order_no: &str) -> Result<Case, Error> {
    op.require_any(WORK_ROLES)?;
    let loan = loan_of(s, op, order_no).await?;
    let today = loan.today(s);
    let market = loan.order.market;
    let borrower =
        s.db.borrower_by_id(&loan.order.borrower_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("order {order_no}: its borrower is missing"))?;
    let phone_masked = if borrower.phone_enc.is_empty() {
        None
    } else {
        Some(unseal_phone(&s.secrets, &borrower.id, market, &borrower.phone_enc)?.masked())
    };
    let id = loan.order.id.as_str();
    let contacts =
        s.db.contacts_of(&[id])
            .await?
            .into_iter()
            .map(|c| open_contact(s, c))
            .collect::<Result<Vec<_>, Error>>()?;
    let waiting = s.db.waiting_payments_of(&[id]).await?;
    let payments = PaymentDays::of(id, market, &waiting, &s.db.payment_credits_of(&[id]).await?)?;
    let promises =
        s.db.promises_of(&[id])
            .await?
            .into_iter()
            .map(|p| promise_state(p, &loan.entries, &loan.balances, &payments, today))
            .collect::<Result<Vec<_>, Error>>()?;
    let reminders = s.db.order_reminders(&[id]).await?;
    let installments = loan
        .balances
        .installments
        .iter()
        .map(|i| (i.clone(), i.status(today)))
        .collect();
    Ok(Case {
        arrears: arrears(&loan.balances, today)?,
        hours: contact_hours(s, market),
        today,
        phone_masked,
        installments,
        contacts,
        promises,
        reminders,
        waiting,
        order: loan.order,
    })
}

/// A loan's contact history and promises (the order view's section): every operator who may open an order.
pub async fn history(
    s: &Services,
    op: &Operator,
    order_no: &str,
) -> Result<(Vec<Contact>, Vec<Promise>), Error> {
    op.require_any(HISTORY_ROLES)?;
    let loan = loan_of(s, op, order_no).await?;
    let today = loan.today(s);
    let id = loan.order.id.as_str();
    let contacts =
        s.db.contacts_of(&[id])
            .await?
            .into_iter()
            .map(|c| open_contact(s, c))
            .collect::<Result<Vec<_>, Error>>()?;
    let payments = PaymentDays::of(
        id,
        loan.order.market,
        &s.db.waiting_payments_of(&[id]).await?,
        &s.db.payment_credits_of(&[id]).await?,
    )?;
    let promises =
        s.db.promises_of(&[id])
            .await?
            .into_iter()
            .map(|p| promise_state(p, &loan.entries, &loan.balances, &payments, today))
            .collect::<Result<Vec<_>, Error>>()?;
    Ok((contacts, promises))
}

/// What an agent logs.
#[derive(Debug, Clone, Default)]
pub struct ContactRequest<'a> {
    pub channel: Option<&'a str>,
    pub outcome: Option<&'a str>,
    pub note: Option<&'a str>,
    /// With the outcome `promised`, the promise made in that contact, recorded with it (both required then, and
    /// refused with any other outcome).
    pub promise_date: Option<&'a str>,
    pub promise_amount: Option<i64>,
    /// When the attempt was made, `HH:MM` of the market's today (left out: now): checked against the contact hours.
    pub attempted_at: Option<&'a str>,
}

/// A contact logged, with the promise recorded with it (the outcome `promised`).
#[derive(Debug, Clone)]
pub struct Logged {
    pub contact: Contact,
    pub promise: Option<Promise>,
}

/// Refuses on `field`, naming the hours and the market's time now, while the market's contact hours are closed.
fn within_hours(hours: &ContactHours, field: &'static str) -> Result<(), Error> {
    if hours.open {
        return Ok(());
    }
    // An attempt logged after it was made is refused for its own time, not for the time it is typed in.
    let problem = if field == "attemptedAt" {
        "field.contact_hours_then"
    } else {
        "field.contact_hours"
    };
    Err(Error::field(
        field,
        FieldProblem::new(problem)
            .with("from", format!("{:02}:00", hours.from))
            .with("until", format!("{:02}:00", hours.until))
            .with("market", market_name(hours.market))
            .with("now", hours.now_hhmm()),
    ))
}

fn active(order: &OrderRow) -> Result<(), Error> {
    if matches!(order.status, OrderState::Disbursed | OrderState::Overdue) {
        Ok(())
    } else {
        Err(Refusal::InvalidTransition.into())
    }
}

/// Logs a contact attempt with the borrower of an open loan (collections, admin), audited. Any contact (a call, SMS,
/// WhatsApp or e-mail) outside the market's contact hours is refused on `channel`, naming the hours and the market's
/// time (PRODUCT.md §7: collections contact the borrower only within them). An attempt logged after it was made gives
/// its time (`attemptedAt`, `HH:MM` of the market's today): the hours are those of that time (refused on
/// `attemptedAt`), and the contact is recorded at it. The outcome `promised` records the
/// promise made with it, checked as [`promise`] checks one (on `promiseDate` and `promiseAmount`), in the same
/// transaction: a contact saying the borrower promised always has the promise the queue follows up.
pub async fn log_contact(
    s: &Services,
    op: &Operator,
    order_no: &str,
    req: ContactRequest<'_>,
) -> Result<Logged, Error> {
    op.require_any(WORK_ROLES)?;
    let mut errors = FieldErrors::default();
    let channel = match req.channel.map(str::trim).filter(|c| !c.is_empty()) {
        None => {
            errors.add("channel", FieldProblem::required());
            None
        }
        Some(code) => {
            let channel = Channel::parse(code);
            if channel.is_none() {
                errors.add("channel", FieldProblem::new("field.contact_channel"));
            }
            channel
        }
    };
    let outcome = match req.outcome.map(str::trim).filter(|c| !c.is_empty()) {
        None => {
            errors.add("outcome", FieldProblem::required());
            None
        }
        Some(code) => {
            let found = OUTCOMES.iter().find(|o| **o == code).copied();
            if found.is_none() {
                errors.add("outcome", FieldProblem::new("field.contact_outcome"));
            }
            found
        }
    };
    let note = req.note.map(str::trim).filter(|n| !n.is_empty());
    if note.is_some_and(|n| n.chars().count() > MAX_NOTE_CHARS) {
        errors.add("note", FieldProblem::too_long(MAX_NOTE_CHARS));
    }
    const PROMISE_FIELDS: (&str, &str) = ("promiseDate", "promiseAmount");
    let promised = if outcome == Some("promised") {
        promise_input(
            req.promise_date,
            req.promise_amount,
            PROMISE_FIELDS,
            &mut errors,
        )
    } else {
        let given =
            req.promise_date.is_some_and(|d| !d.trim().is_empty()) || req.promise_amount.is_some();
        if given && outcome.is_some() {
            errors.add(PROMISE_FIELDS.0, FieldProblem::new("field.promise_outcome"));
        }
        None
    };
    errors.into_result()?;
    let (channel, outcome) = (
        channel.expect("checked above"),
        outcome.expect("checked above"),
    );
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    if s.db.loan(&order.id).await?.is_none() {
        return Err(Error::NotFound);
    }
    let mut errors = FieldErrors::default();
    let attempted = attempt_time(order.market, s.clock.now(), req.attempted_at, &mut errors);
    errors.into_result()?;
    // The hours when the attempt was made, not when it is typed in.
    let hours = contact_hours_at(order.market, attempted);
    let field = if req.attempted_at.is_some_and(|t| !t.trim().is_empty()) {
        "attemptedAt"
    } else {
        "channel"
    };
    within_hours(&hours, field)?;
    let now = s.clock.now_ms();
    let attempted_ms = i64::try_from(attempted.unix_timestamp_nanos() / 1_000_000)
        .map_err(|_| anyhow::anyhow!("an attempt's time out of range"))?;
    let local_time = hours.now_hhmm();
    let mut tx = s.db.begin().await?;
    let (order, recorded) = match promised {
        // The loan is read (its order locked) only for a promise, which is checked against what it owes.
        Some(input) => {
            let loan = crate::servicing::load_in(&mut tx, &order.id).await?;
            let order = loan.order.clone();
            let recorded = record_promise_in(s, op, &mut tx, loan, input, PROMISE_FIELDS).await?;
            (order, Some(recorded))
        }
        None => {
            let order = tx
                .order_locked_in_tx(&order.id)
                .await?
                .ok_or(Error::NotFound)?;
            active(&order)?;
            (order, None)
        }
    };
    let secrets = &s.secrets;
    let id = tx
        .insert_contact(
            &NewContact {
                order_id: &order.id,
                operator_id: &op.id,
                channel: channel.code(),
                outcome,
                local_time: &local_time,
                at: attempted_ms,
            },
            note,
            |id, text| secrets.encrypt(text, Binding::CollectionNote { id }),
        )
        .await?;
    let after = serde_json::json!({
        "contactId": id, "channel": channel.code(), "outcome": outcome, "localTime": local_time,
        "withNote": note.is_some(), "promiseId": recorded.as_ref().map(|r| r.id.as_str()), "attemptedAt": attempted_ms,
    })
    .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "collections.contact",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row =
        s.db.contacts_of(&[order.id.as_str()])
            .await?
            .into_iter()
            .find(|c| c.id == id)
            .ok_or_else(|| anyhow::anyhow!("the contact just logged is missing"))?;
    let promise = match recorded {
        Some(r) => Some(recorded_promise(s, &order.id, r).await?),
        None => None,
    };
    Ok(Logged {
        contact: open_contact(s, row)?,
        promise,
    })
}

/// The market's name as the console's texts say it.
pub fn market_name(market: Market) -> &'static str {
    match market {
        Market::India => "India",
        Market::Indonesia => "Indonesia",
    }
}

/// A promise as the agent typed it: the date and the amount, each required, named by `fields` (`date` and `amount`
/// on its own, `promiseDate` and `promiseAmount` with a contact). None after adding each problem to `errors`.
fn promise_input(
    date: Option<&str>,
    amount: Option<i64>,
    fields: (&'static str, &'static str),
    errors: &mut FieldErrors,
) -> Option<(Date, i64)> {
    let date = match date.map(str::trim).filter(|d| !d.is_empty()) {
        None => {
            errors.add(fields.0, FieldProblem::required());
            None
        }
        Some(text) => match parse_date(text) {
            Ok(d) => Some(d),
            Err(_) => {
                errors.add(fields.0, FieldProblem::new("field.date_format"));
                None
            }
        },
    };
    if amount.is_none() {
        errors.add(fields.1, FieldProblem::required());
    }
    date.zip(amount)
}

/// A promise recorded in a transaction, to read once it is committed.
struct Recorded {
    id: String,
    entries: Vec<LedgerEntry>,
    balances: LoanBalances,
    payments: PaymentDays,
    today: Date,
}

/// Checks and records a promise of `amount` by `date` on the loan `tx` holds locked, audited: an amount above zero and
/// at most what the loan owes, by a date from the market's today to [`PROMISE_MAX_DAYS`] after, and no other promise
/// open. Problems are named by `fields`.
async fn record_promise_in(
    s: &Services,
    op: &Operator,
    tx: &mut crate::store::Tx,
    mut loan: crate::servicing::Loan,
    (date, amount): (Date, i64),
    fields: (&'static str, &'static str),
) -> Result<Recorded, Error> {
    active(&loan.order)?;
    // Which credits of the ledger just loaded came from payments made before a promise (they do not count towards
    // it), read with the order locked, so no credit is in the one and not the other.
    let payments = PaymentDays::of(
        &loan.order.id,
        loan.order.market,
        &[],
        &tx.payment_credits_in_tx(&loan.order.id).await?,
    )?;
    let today = s.clock.today(loan.order.market);
    let outstanding = loan
        .balances
        .outstanding
        .total()
        .map_err(|e| Error::Internal(e.into()))?
        .minor();
    let latest_day = today + Duration::days(PROMISE_MAX_DAYS);
    let mut errors = FieldErrors::default();
    if date < today || date > latest_day {
        errors.add(
            fields.0,
            FieldProblem::new("field.promise_date")
                .with("from", date_code(today))
                .with("to", date_code(latest_day)),
        );
    }
    if amount < 1 || amount > outstanding {
        errors.add(
            fields.1,
            FieldProblem::new("field.promise_amount").with("max", outstanding),
        );
    }
    errors.into_result()?;
    let entries = std::mem::take(&mut loan.entries);
    for existing in tx.promises_in_tx(&loan.order.id).await? {
        // Only an open promise (its date to come) stands in the way of a new one.
        let p = promise_state(existing, &entries, &loan.balances, &payments, today)?;
        if p.state == PromiseState::Open {
            return Err(Error::field(
                fields.0,
                FieldProblem::new("field.promise_open")
                    .with("amount", p.row.amount)
                    .with("date", date_code(p.promised_on)),
            ));
        }
    }
    let now = s.clock.now_ms();
    let made_on = date_code(today);
    let promised_on = date_code(date);
    let id = tx
        .insert_promise(&NewPromise {
            order_id: &loan.order.id,
            operator_id: &op.id,
            amount,
            made_on: &made_on,
            promised_on: &promised_on,
            at: now,
        })
        .await?;
    let after = serde_json::json!({
        "promiseId": id, "amount": amount, "date": promised_on, "madeOn": made_on,
    })
    .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "collections.promise",
        entity: "order",
        entity_id: &loan.order.id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    Ok(Recorded {
        id,
        entries,
        balances: loan.balances,
        payments,
        today,
    })
}

/// The state of a promise [`record_promise_in`] recorded, once committed.
async fn recorded_promise(s: &Services, order_id: &str, r: Recorded) -> Result<Promise, Error> {
    let row =
        s.db.promises_of(&[order_id])
            .await?
            .into_iter()
            .find(|p| p.id == r.id)
            .ok_or_else(|| anyhow::anyhow!("the promise just recorded is missing"))?;
    promise_state(row, &r.entries, &r.balances, &r.payments, r.today)
}

/// Records a promise to pay (collections, admin), audited, as [`record_promise_in`] checks it, within the market's
/// contact hours (refused on `date`, as a contact is on `channel`). One promise is open at a time: checked and written
/// under the order's lock.
pub async fn promise(
    s: &Services,
    op: &Operator,
    order_no: &str,
    date: Option<&str>,
    amount: Option<i64>,
) -> Result<Promise, Error> {
    op.require_any(WORK_ROLES)?;
    let mut errors = FieldErrors::default();
    let input = promise_input(date, amount, ("date", "amount"), &mut errors);
    errors.into_result()?;
    let input = input.expect("checked above");
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    // A promise is made in a contact: within the contact hours, as the contact is.
    within_hours(&contact_hours(s, order.market), "date")?;
    let mut tx = s.db.begin().await?;
    let loan = crate::servicing::load_in(&mut tx, &order.id).await?;
    let recorded = record_promise_in(s, op, &mut tx, loan, input, ("date", "amount")).await?;
    tx.commit().await?;
    recorded_promise(s, &order.id, recorded).await
}

/// The borrower's full phone number (E.164) for an agent to call (collections, admin): only for an open loan and
/// within the market's contact hours (otherwise refused on `phone`, as a contact is on `channel`), since the number
/// is for calling and a call made with it outside them could not be logged. The view is audited (`view_unmasked`,
/// field `phone`) before the number is returned. None once the account was deleted.
pub async fn reveal_phone(
    s: &Services,
    op: &Operator,
    order_no: &str,
) -> Result<Option<String>, Error> {
    op.require_any(WORK_ROLES)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    if s.db.loan(&order.id).await?.is_none() {
        return Err(Error::NotFound);
    }
    active(&order)?;
    within_hours(&contact_hours(s, order.market), "phone")?;
    let borrower =
        s.db.borrower_by_id(&order.borrower_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("order {order_no}: its borrower is missing"))?;
    if borrower.phone_enc.is_empty() {
        return Ok(None);
    }
    let phone = unseal_phone(&s.secrets, &borrower.id, order.market, &borrower.phone_enc)?;
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "view_unmasked",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(r#"{"field":"phone"}"#),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(Some(phone.e164().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_split_at_their_edges() {
        let cases = [
            (0, None),
            (1, Some("1-7")),
            (7, Some("1-7")),
            (8, Some("8-30")),
            (30, Some("8-30")),
            (31, Some("31-60")),
            (60, Some("31-60")),
            (61, Some("61-90")),
            (90, Some("61-90")),
            (91, Some("90+")),
            (4000, Some("90+")),
        ];
        for (days, want) in cases {
            assert_eq!(Bucket::of(days).map(Bucket::code), want, "{days} days");
        }
        for b in Bucket::ALL {
            assert_eq!(Bucket::parse(b.code()), Some(b));
            let (low, high) = b.days();
            assert_eq!(Bucket::of(low), Some(b));
            if let Some(high) = high {
                assert_eq!(Bucket::of(high), Some(b));
                assert_ne!(Bucket::of(high + 1), Some(b));
            }
            assert_ne!(Bucket::of(low - 1), Some(b));
        }
    }

    #[test]
    fn channels_parse_by_code() {
        assert_eq!(Channel::parse(" WhatsApp "), Some(Channel::Whatsapp));
        assert_eq!(Channel::parse("pigeon"), None);
    }
}
