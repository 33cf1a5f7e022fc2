//! Reminders to the borrower (never anyone else: the text goes to the phone the borrower signed in with): three days
//! and one day before an installment's due date, on it, and once it is overdue. The overdue job queues them in the
//! notification outbox (at most one per installment and kind, by a unique constraint); [`deliver`] sends them
//! through the same delivery as sign-in codes, only within the market's sending hours (08:00–19:00 IST in India,
//! 08:00–20:00 WIB in Indonesia). A text queued outside them waits for the window to open, and is checked against the
//! loan again just before it goes: one the loan no longer calls for that day (paid, extended, exited, a UTR waiting)
//! is dropped, and one whose amount changed goes with today's.

use std::collections::BTreeSet;

use futures_util::StreamExt;

use kilat_domain::{Code, InstallmentStatus, LoanBalances, Market, Money, Plan};
use time::{Date, OffsetDateTime};

use crate::auth::unseal_phone;
use crate::i18n::{self, Lang};
use crate::infra::gateway;
use crate::infra::push::{PushMessage, PushOutcome};
use crate::infra::sms::{Channel, CodeMessage, SendError};
use crate::services::Services;
use crate::store::jobs::{NewNotification, OpenLoanRow, PendingNotification};

/// A reminder's kind, by days before the due date (negative: overdue).
pub fn kind_for(days_to_due: i64) -> Option<&'static str> {
    match days_to_due {
        3 => Some("due_in_3"),
        1 => Some("due_in_1"),
        0 => Some("due_today"),
        d if d < 0 => Some("overdue"),
        _ => None,
    }
}

/// True for a reminder's kind (not a receipt's).
fn is_reminder(kind: &str) -> bool {
    matches!(kind, "due_in_3" | "due_in_1" | "due_today" | "overdue")
}

/// The status of a reminder the loan no longer called for when it was to be sent (paid, extended, exited, a UTR
/// waiting, or a day late): never sent.
pub const DROPPED: &str = "dropped";

/// The catalog key of a reminder's text: an overdue one warns of late charges only when the accepted KFS has any.
fn text_key(kind: &str, charges_late: bool) -> &'static str {
    match kind {
        "due_in_3" => "reminder.three_days_before",
        "due_in_1" => "reminder.one_day_before",
        "due_today" => "reminder.due_today",
        _ if charges_late => "reminder.overdue",
        _ => "reminder.overdue_no_charge",
    }
}

/// The local hours texts may be sent in: from 08:00 to 19:00 in India and to 20:00 in Indonesia.
pub fn sending_hours(market: Market) -> (u8, u8) {
    match market {
        Market::India => (8, 19),
        Market::Indonesia => (8, 20),
    }
}

/// True when `now` is within the market's sending hours.
pub fn may_send(market: Market, now: OffsetDateTime) -> bool {
    let (from, until) = sending_hours(market);
    let hour = market.local_time(now).hour();
    (from..until).contains(&hour)
}

/// Sends after this many failed tries are given up (`failed`).
pub const MAX_ATTEMPTS: i64 = 8;

/// Minutes from a failed try to the next, by the tries made before it: a provider down for a while is waited out
/// (the tries span two hours and more) instead of every try being spent in the next few minutes' runs.
pub const RETRY_AFTER_MINUTES: [i64; 7] = [1, 2, 5, 10, 20, 40, 60];

/// When a text whose try failed at `at`, having been tried `attempts` times before it, is tried again.
pub fn next_try_at(attempts: i64, at: i64) -> i64 {
    let step = usize::try_from(attempts)
        .unwrap_or(0)
        .min(RETRY_AFTER_MINUTES.len() - 1);
    at + RETRY_AFTER_MINUTES[step] * 60_000
}

/// Where a text goes after a failed try, having been tried `attempts` times before it: back to wait for the next
/// run, or given up after the last of [`MAX_ATTEMPTS`].
fn after_failed_try(attempts: i64) -> &'static str {
    if attempts + 1 >= MAX_ATTEMPTS {
        "failed"
    } else {
        "pending"
    }
}

/// Texts read a page at a time, per market.
const PAGE: i64 = 200;

/// How long one run keeps sending pages before it hands the minute back to the jobs' timer; what is left goes at the
/// next run.
pub const SENDING_TIME: std::time::Duration = std::time::Duration::from_secs(45);

/// Adds to `out` the reminders one loan has due on `date`: for each installment still owing, not covered by a
/// payment waiting for finance, the kind its due date calls for.
pub(crate) fn due_on<'a>(
    market: Market,
    row: &'a OpenLoanRow,
    plan: &Plan,
    balances: &LoanBalances,
    verifying: &BTreeSet<u32>,
    date: Date,
    out: &mut Vec<NewNotification<'a>>,
) {
    let lang = Lang::of_market(market);
    let late = plan.quote.late_charge;
    let charges_late = late.flat != Money::ZERO || late.per_day != Money::ZERO;
    for inst in &balances.installments {
        let status = inst.status(date);
        if matches!(status, InstallmentStatus::Paid) || !inst.scheduled {
            continue;
        }
        if verifying.contains(&inst.number) {
            continue;
        }
        let days = (inst.due_date - date).whole_days();
        let Some(kind) = kind_for(days) else { continue };
        let amount = inst.outstanding.total().unwrap_or(Money::ZERO);
        // As the app writes a date: "25 Dec 2026", "25 Des 2026".
        let due_date = i18n::format_date(lang, inst.due_date);
        let text = i18n::format(
            lang,
            text_key(kind, charges_late),
            &[
                ("order_no", &row.order_no),
                ("number", &inst.number.to_string()),
                ("amount", &i18n::sms_money(amount, market.currency())),
                ("due_date", &due_date),
            ],
        );
        out.push(NewNotification {
            order_id: &row.order_id,
            borrower_id: &row.borrower_id,
            market: market.code(),
            installment: inst.number,
            kind,
            text,
            due_on: crate::store::loans::date_code(inst.due_date),
        });
    }
}

/// The outbox's kind of a payment receipt pushed to the borrower's devices (the text is the SMS receipt's).
pub const PUSH_RECEIPT: &str = "receipt_push";

/// Devices one push goes to at most: the borrower's most recently registered.
const PUSH_DEVICES: i64 = 3;

/// A pushed receipt, to each of the borrower's devices: sent when one device's gateway took it. Tokens the gateway no
/// longer knows are forgotten. Perhaps sent (`Unknown`: never pushed again) when no answer came from a gateway that
/// may have taken it and none took it for sure; not sent (tried again later, then `failed`) when pushes are off or no
/// device took it.
async fn push_to_devices(
    s: &Services,
    market: Market,
    note: &PendingNotification,
) -> Result<(), SendError> {
    let Some(push) = &s.push else {
        return Err(SendError::NotSent(anyhow::anyhow!(
            "pushes are off (push.sender = off)"
        )));
    };
    let not_sent = |err: sqlx::Error| SendError::NotSent(err.into());
    let title = i18n::format(Lang::of_market(market), "receipt.push_title", &[]);
    let mut delivered = false;
    let mut unconfirmed = None;
    let mut failure = None;
    let devices =
        s.db.push_tokens_of(&note.borrower_id, PUSH_DEVICES)
            .await
            .map_err(not_sent)?;
    for device in devices {
        let message = PushMessage {
            token: device.token,
            platform: device.platform,
            title: title.clone(),
            body: note.text.clone(),
        };
        match push.send(&message).await {
            Ok(PushOutcome::Delivered) => delivered = true,
            Ok(PushOutcome::Unconfirmed(doubt)) => unconfirmed = Some(doubt),
            Ok(PushOutcome::TokenGone) => {
                s.db.forget_push_token(&note.borrower_id, &message.token)
                    .await
                    .map_err(not_sent)?;
            }
            Err(err) => failure = Some(err),
        }
    }
    match (delivered, unconfirmed, failure) {
        (true, _, _) => Ok(()),
        (false, Some(doubt), _) => Err(SendError::Unknown(anyhow::anyhow!(doubt))),
        (false, None, Some(err)) => Err(SendError::NotSent(err)),
        (false, None, None) => Err(SendError::NotSent(anyhow::anyhow!(
            "no device to push to: the borrower's push tokens are gone"
        ))),
    }
}

/// How long a sender's claim on a text (`sending`) holds: five times the longest a send can take (a push to each of
/// [`PUSH_DEVICES`] devices, every call at the settings' longest, [`gateway::LONGEST_POST`]). A claim older than this
/// was left by a sender that stopped between its claim and its record (a crash, a restart mid-send).
pub const SENDING_LEASE_MS: i64 = 15 * 60 * 1000;

const _: () = assert!(
    5 * PUSH_DEVICES as u128 * gateway::LONGEST_POST.as_millis() <= SENDING_LEASE_MS as u128
);

/// What a text taken back from a stopped sender records as its try's error.
pub const OUTCOME_UNKNOWN: &str =
    "the sender stopped after claiming this text and before recording whether it went out";

/// Sends the queued texts (reminders and receipts) of each market within its sending hours from `now` on, page after
/// page, `sms.sends_at_once` at a time, until nothing waits or [`SENDING_TIME`] has passed; returns how many went out.
/// Each send starts only while the run has time left and the market's sending hours last, so a slow gateway holds a
/// run past its time by no more than the sends under way, and no text starts after the hours close.
/// Each text is claimed (`pending` → `sending`) before it is sent, so two servers never send one twice; a failed send
/// goes back to `pending`, tried again later after each failure ([`RETRY_AFTER_MINUTES`]), and to `failed` after
/// [`MAX_ATTEMPTS`]. First, the texts claimed longer than
/// [`SENDING_LEASE_MS`] ago are taken back the same way, as a try whose outcome is unknown: a text is sent at least
/// once, and may reach the borrower twice when its sender stopped after the send and before recording it.
pub async fn deliver(s: &Services, now: OffsetDateTime) -> anyhow::Result<u64> {
    deliver_within(s, now, SENDING_TIME).await
}

/// [`deliver`] with the run's time given (the tests shorten it).
pub async fn deliver_within(
    s: &Services,
    now: OffsetDateTime,
    time: std::time::Duration,
) -> anyhow::Result<u64> {
    let at = s.clock.now_ms();
    let taken_back =
        s.db.take_back_notifications(at - SENDING_LEASE_MS, MAX_ATTEMPTS, OUTCOME_UNKNOWN, at)
            .await?;
    if taken_back > 0 {
        tracing::warn!(
            taken_back,
            claimed_minutes_ago = SENDING_LEASE_MS / 60_000,
            "texts claimed for sending longer ago than a send can take were taken back: their sender stopped before \
             recording what became of them"
        );
    }
    // Texts that waited since before this run: one that fails in it is tried again at the next run, not at once.
    let waiting_before = at + 1;
    let started = std::time::Instant::now();
    // Whether a send (or a page) of the market may start now.
    let open =
        |market: Market| started.elapsed() < time && may_send(market, now + started.elapsed());
    let mut sent = 0;
    // A page of each market in turn until each is sent or the run's time is up; within a page, each text only while
    // the run's time and the market's hours last: the rest stay pending, unclaimed, for the next run.
    let mut markets: Vec<Market> = Market::ALL.to_vec();
    while !markets.is_empty() && started.elapsed() < time {
        let mut left = Vec::with_capacity(markets.len());
        for market in markets {
            if !open(market) {
                continue;
            }
            let page =
                s.db.pending_notifications(market.code(), waiting_before, PAGE)
                    .await?;
            let full = page.len() == PAGE as usize;
            let outcomes: Vec<anyhow::Result<bool>> = futures_util::stream::iter(page)
                .map(|note| async move {
                    if open(market) {
                        send_one(s, market, note, waiting_before).await
                    } else {
                        Ok(false)
                    }
                })
                .buffer_unordered(s.sends_at_once)
                .collect()
                .await;
            for outcome in outcomes {
                sent += u64::from(outcome?);
            }
            if full {
                left.push(market);
            }
        }
        markets = left;
    }
    Ok(sent)
}

/// Claims one text (`pending` → `sending`), sends it and records what became of it: `sent`, or `pending` again after
/// a failure (`failed` after the last of [`MAX_ATTEMPTS`]), stamped no earlier than the run's `waiting_before`, so the
/// run's later pages do not read it again (a failure within the run's first millisecond included). True when it was
/// sent; false when another sender had claimed it or the send failed.
async fn send_one(
    s: &Services,
    market: Market,
    note: PendingNotification,
    waiting_before: i64,
) -> anyhow::Result<bool> {
    let at = s.clock.now_ms();
    // A reminder is written at the business day's start and sent from 08:00, or later: the borrower may have paid,
    // extended, exited, or sent a UTR meanwhile. It goes only if the loan still calls for it today, with today's
    // amount; else it is dropped, never sent.
    let mut text = None;
    if is_reminder(&note.kind) {
        let today = s.clock.today(market);
        let due = match super::overdue::reminders_due_now(s, market, &note.order_id, today).await {
            Ok(due) => due,
            Err(err) => {
                // A loan that cannot be read counts as a failed try of its text; the others still go.
                tracing::warn!(id = %note.id, error = %err, "a reminder's loan could not be read");
                let to = after_failed_try(note.attempts);
                let error = format!("reading its loan: {err:#}");
                let at = at.max(waiting_before);
                s.db.put_back_notification(
                    &note.id,
                    ("pending", note.attempts),
                    to,
                    &error,
                    at,
                    next_try_at(note.attempts, at),
                )
                .await?;
                return Ok(false);
            }
        };
        match due
            .into_iter()
            .find(|(n, kind, _)| i64::from(*n) == note.installment && *kind == note.kind)
        {
            Some((_, _, now_reads)) => text = Some(now_reads).filter(|t| *t != note.text),
            None => {
                if s.db
                    .move_notification(&note.id, "pending", DROPPED, None, at)
                    .await?
                {
                    tracing::info!(id = %note.id, kind = %note.kind, "a reminder no longer due was dropped");
                }
                return Ok(false);
            }
        }
    }
    if !s
        .db
        .move_notification(&note.id, "pending", "sending", None, at)
        .await?
    {
        return Ok(false);
    }
    if let Some(text) = &text {
        s.db.retext_notification(&note.id, text).await?;
    }
    let text = text.unwrap_or(note.text.clone());
    let outcome = if note.kind == PUSH_RECEIPT {
        push_to_devices(s, market, &note).await
    } else {
        match unseal_phone(&s.secrets, &note.borrower_id, market, &note.phone_enc) {
            Ok(phone) => {
                let message = CodeMessage {
                    phone,
                    code: String::new(),
                    channel: Channel::Sms,
                    text,
                };
                s.sms.send(&message).await
            }
            Err(err) => Err(SendError::NotSent(err)),
        }
    };
    let at = s.clock.now_ms();
    match outcome {
        Ok(()) => {
            s.db.move_notification(&note.id, "sending", "sent", None, at)
                .await?;
            Ok(true)
        }
        // Perhaps sent (the provider's answer never came): never sent twice, the doubt kept with it.
        Err(SendError::Unknown(err)) => {
            tracing::warn!(id = %note.id, kind = %note.kind, error = %err,
                "a reminder may not have been sent; it is not sent again");
            s.db.move_notification(
                &note.id,
                "sending",
                "sent",
                Some(&format!("unconfirmed: {err:#}")),
                at,
            )
            .await?;
            Ok(true)
        }
        Err(SendError::NotSent(err)) => {
            let to = after_failed_try(note.attempts);
            tracing::warn!(id = %note.id, kind = %note.kind, error = %err, "a reminder was not sent");
            let at = at.max(waiting_before);
            s.db.put_back_notification(
                &note.id,
                ("sending", note.attempts),
                to,
                &format!("{err:#}"),
                at,
                next_try_at(note.attempts, at),
            )
            .await?;
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn texts_go_out_between_eight_and_seven_in_india_and_eight_in_indonesia() {
        // 02:29 UTC is 07:59 IST; 02:30 is 08:00.
        assert!(!may_send(Market::India, datetime!(2026-11-25 02:29 UTC)));
        assert!(may_send(Market::India, datetime!(2026-11-25 02:30 UTC)));
        // 13:29 UTC is 18:59 IST; 13:30 is 19:00.
        assert!(may_send(Market::India, datetime!(2026-11-25 13:29 UTC)));
        assert!(!may_send(Market::India, datetime!(2026-11-25 13:30 UTC)));
        // 00:59 UTC is 07:59 WIB; 12:59 is 19:59; 13:00 is 20:00.
        assert!(!may_send(
            Market::Indonesia,
            datetime!(2026-11-25 00:59 UTC)
        ));
        assert!(may_send(Market::Indonesia, datetime!(2026-11-25 01:00 UTC)));
        assert!(may_send(Market::Indonesia, datetime!(2026-11-25 12:59 UTC)));
        assert!(!may_send(
            Market::Indonesia,
            datetime!(2026-11-25 13:00 UTC)
        ));
    }

    #[test]
    fn reminders_fall_three_days_and_one_day_before_on_the_day_and_after() {
        assert_eq!(kind_for(4), None);
        assert_eq!(kind_for(3), Some("due_in_3"));
        assert_eq!(kind_for(2), None);
        assert_eq!(kind_for(1), Some("due_in_1"));
        assert_eq!(kind_for(0), Some("due_today"));
        assert_eq!(kind_for(-1), Some("overdue"));
        assert_eq!(kind_for(-30), Some("overdue"));
    }
}
