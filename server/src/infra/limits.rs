//! The one request limiter (issue 17): every limit the server keeps, in one list ([`Limits`]), each counted in the
//! database (`rate_limits`) by one conditional upsert per request, so that every server sharing the database counts
//! the same requests; and the client address as a limit sees it (an IPv6 address by its /64). The reasoning, and
//! each limit's size, is in docs/ARCHITECTURE.md, "Security: limits".

use std::net::{IpAddr, Ipv6Addr};

use crate::error::Error;
use crate::settings::Settings;
use crate::store::rate_limits::Hit;
use crate::store::{Db, Tx};

const MINUTE_MS: i64 = 60 * 1000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;

/// What a limit counts requests of; its rows are keyed `<name>:<subject>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A client address ([`address_key`]: IPv4 whole, IPv6 by its /64).
    Address,
    /// A phone (its keyed hash), with the code's purpose where it matters.
    Phone,
    Borrower,
    /// A borrower session (its token's hash).
    Session,
    Operator,
    /// An operator and a client address together.
    OperatorAddress,
    /// A market (`IN`, `ID`): one budget everyone in it shares.
    Market,
}

/// A limit: at most `max` requests per subject in a window of `window_ms` that starts with the subject's first
/// request after the previous window ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub name: &'static str,
    pub key: KeyKind,
    pub max: u32,
    pub window_ms: i64,
}

impl Limit {
    /// The limit's row for `subject`.
    pub fn key(&self, subject: &str) -> String {
        format!("{}:{subject}", self.name)
    }
}

/// A one-time code per phone and purpose no sooner than a minute after the last.
pub const CODE_RESEND_MS: i64 = MINUTE_MS;
/// Codes per phone in a day (every purpose together).
pub const CODES_PER_PHONE: u32 = 10;
/// Password checks per operator and client address in `PASSWORD_CHECKS_WINDOW_MS`.
pub const PASSWORD_CHECKS_PER_ADDRESS: u32 = 5;
pub const PASSWORD_CHECKS_WINDOW_MS: i64 = 15 * MINUTE_MS;
/// Sign-in attempts per address are counted in windows of ten minutes (borrowers and console).
pub const SIGN_IN_WINDOW_MS: i64 = 10 * MINUTE_MS;
/// Data exports a borrower may download in an hour (each decrypts their whole record).
pub const EXPORTS_PER_HOUR: u32 = 3;
/// Loan documents (PDFs) a borrower may download in an hour: far more than anybody reads, far fewer than a script.
pub const DOCUMENTS_PER_HOUR: u32 = 60;
/// Replies a borrower may add to their complaints in a day (each bounded like a complaint's text).
pub const COMPLAINT_REPLIES_PER_DAY: u32 = 30;
/// Hand-over codes a native session may ask for in a minute: the shell asks for one each time it opens the web app.
pub const HANDOVERS_PER_MINUTE: u32 = 10;

/// Every window of [`Limits`], the longest decides which rows the cleanup may remove.
const WINDOWS: [i64; 6] = [
    CODE_RESEND_MS,
    DAY_MS,
    SIGN_IN_WINDOW_MS,
    PASSWORD_CHECKS_WINDOW_MS,
    MINUTE_MS,
    HOUR_MS,
];

/// The longest window of any limit: a row whose window started twice that long ago can refuse nothing.
pub const LONGEST_WINDOW_MS: i64 = {
    let mut longest = 0;
    let mut i = 0;
    while i < WINDOWS.len() {
        if WINDOWS[i] > longest {
            longest = WINDOWS[i];
        }
        i += 1;
    }
    longest
};

/// Every limit the server keeps: the one list. The per-phone, per-borrower and per-session limits carry the load;
/// the per-address ones are sized for an address many people share (a carrier-grade NAT), from the settings
/// (`[limits]`, `contact.per_minute`, `telemetry.per_minute`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// One code per phone and purpose a minute (`code_resend_too_soon`).
    pub code_resend: Limit,
    /// Codes per phone a day (`daily_limit_reached`).
    pub codes_per_phone: Limit,
    /// Codes requested from one address a day (`daily_limit_reached`).
    pub codes_per_address: Limit,
    /// Sign-in codes sent in one market in ten minutes to numbers no borrower has, every phone and address together
    /// (`rate_limited`): the SMS bill's ceiling against a pumping attack spread over many addresses and numbers, which
    /// a borrower's own number never meets.
    pub codes_per_market: Limit,
    /// Borrower sign-in attempts from one address in ten minutes (`rate_limited`).
    pub sign_ins_per_address: Limit,
    /// Console sign-in attempts from one address in ten minutes (`rate_limited`).
    pub console_sign_ins_per_address: Limit,
    /// Password checks per operator and address (`operator_locked`).
    pub password_checks_per_address: Limit,
    /// Password checks per operator from addresses it never signed in from (`operator_locked`).
    pub password_checks_per_account: Limit,
    /// Telemetry requests per borrower session a minute (`rate_limited`).
    pub telemetry_per_session: Limit,
    /// Hand-over codes a native session asks for in a minute (`rate_limited`): each is a row, and each exchange a
    /// browser session.
    pub handovers_per_session: Limit,
    /// Data exports per borrower an hour (`rate_limited`).
    pub exports_per_borrower: Limit,
    /// Loan documents (PDFs) per borrower an hour (`rate_limited`).
    pub documents_per_borrower: Limit,
    /// Complaints filed per borrower a day (`rate_limited`).
    pub complaints_per_borrower: Limit,
    /// Replies per borrower to their complaints a day (`rate_limited`).
    pub complaint_replies_per_borrower: Limit,
    /// Repayments started per borrower a day (`rate_limited`).
    pub payments_per_borrower: Limit,
    /// Contact messages from one address a minute, and a day (`rate_limited`).
    pub contact_per_minute: Limit,
    pub contact_per_day: Limit,
}

impl Limits {
    pub fn from_settings(s: &Settings) -> Self {
        let l = &s.limits;
        Self {
            code_resend: limit("code_resend", KeyKind::Phone, 1, CODE_RESEND_MS),
            codes_per_phone: limit("codes_phone", KeyKind::Phone, CODES_PER_PHONE, DAY_MS),
            codes_per_address: limit(
                "codes_addr",
                KeyKind::Address,
                l.codes_per_address_per_day,
                DAY_MS,
            ),
            codes_per_market: limit(
                "codes_market",
                KeyKind::Market,
                l.codes_per_market,
                SIGN_IN_WINDOW_MS,
            ),
            sign_ins_per_address: limit(
                "sign_in_addr",
                KeyKind::Address,
                l.sign_ins_per_address,
                SIGN_IN_WINDOW_MS,
            ),
            console_sign_ins_per_address: limit(
                "console_addr",
                KeyKind::Address,
                l.console_sign_ins_per_address,
                SIGN_IN_WINDOW_MS,
            ),
            password_checks_per_address: limit(
                "password_addr",
                KeyKind::OperatorAddress,
                PASSWORD_CHECKS_PER_ADDRESS,
                PASSWORD_CHECKS_WINDOW_MS,
            ),
            password_checks_per_account: limit(
                "password_account",
                KeyKind::Operator,
                l.password_checks_per_account,
                PASSWORD_CHECKS_WINDOW_MS,
            ),
            telemetry_per_session: limit(
                "telemetry",
                KeyKind::Session,
                s.telemetry.per_minute,
                MINUTE_MS,
            ),
            handovers_per_session: limit(
                "handover",
                KeyKind::Session,
                HANDOVERS_PER_MINUTE,
                MINUTE_MS,
            ),
            exports_per_borrower: limit("export", KeyKind::Borrower, EXPORTS_PER_HOUR, HOUR_MS),
            documents_per_borrower: limit(
                "documents",
                KeyKind::Borrower,
                DOCUMENTS_PER_HOUR,
                HOUR_MS,
            ),
            complaints_per_borrower: limit(
                "complaints",
                KeyKind::Borrower,
                l.complaints_per_day,
                DAY_MS,
            ),
            complaint_replies_per_borrower: limit(
                "complaint_replies",
                KeyKind::Borrower,
                COMPLAINT_REPLIES_PER_DAY,
                DAY_MS,
            ),
            payments_per_borrower: limit("payments", KeyKind::Borrower, l.payments_per_day, DAY_MS),
            contact_per_minute: limit(
                "contact_min",
                KeyKind::Address,
                s.contact.per_minute,
                MINUTE_MS,
            ),
            contact_per_day: limit("contact_day", KeyKind::Address, l.contact_per_day, DAY_MS),
        }
    }

    /// Every limit, in the list's order.
    pub fn all(&self) -> [&Limit; 17] {
        [
            &self.code_resend,
            &self.codes_per_phone,
            &self.codes_per_address,
            &self.codes_per_market,
            &self.sign_ins_per_address,
            &self.console_sign_ins_per_address,
            &self.password_checks_per_address,
            &self.password_checks_per_account,
            &self.telemetry_per_session,
            &self.handovers_per_session,
            &self.exports_per_borrower,
            &self.documents_per_borrower,
            &self.complaints_per_borrower,
            &self.complaint_replies_per_borrower,
            &self.payments_per_borrower,
            &self.contact_per_minute,
            &self.contact_per_day,
        ]
    }
}

const fn limit(name: &'static str, key: KeyKind, max: u32, window_ms: i64) -> Limit {
    Limit {
        name,
        key,
        max,
        window_ms,
    }
}

/// A client address as the per-address limits key it: IPv4 whole; an IPv4-mapped IPv6 address as its IPv4; any
/// other IPv6 address by its /64, the smallest network a provider hands one customer (a host picks any of its 2^64
/// addresses at will). Anything that is not an address is keyed as it is.
pub fn address_key(addr: &str) -> String {
    match addr.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{}/64", Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        Err(_) => addr.to_owned(),
    }
}

/// A limit that refused a request, and when its window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    pub limit: Limit,
    pub retry_after_secs: u64,
}

impl Refused {
    /// The common answer: `429 rate_limited` with `Retry-After`.
    pub fn rate_limited(self) -> Error {
        Error::RateLimited {
            retry_after_secs: self.retry_after_secs,
        }
    }
}

fn judge(limit: &Limit, hit: Hit, now: i64) -> Result<(), Refused> {
    if hit.hits <= i64::from(limit.max) {
        return Ok(());
    }
    crate::infra::metrics::limit_refused(limit.name);
    // Another server's clock may have read a little later than this one's: never more than the window.
    let wait_ms = (hit.window_start + limit.window_ms - now).clamp(1, limit.window_ms);
    Err(Refused {
        limit: *limit,
        retry_after_secs: u64::try_from((wait_ms + 999) / 1000).unwrap_or(1).max(1),
    })
}

/// Counts one request of `subject` under `limit` at `now`: one statement, on its own.
pub async fn count(
    db: &Db,
    limit: &Limit,
    subject: &str,
    now: i64,
) -> sqlx::Result<Result<(), Refused>> {
    let hit = db
        .hit_rate_limit(&limit.key(subject), now, limit.window_ms)
        .await?;
    Ok(judge(limit, hit, now))
}

/// Of `subjects`, those `limit` refuses now (its window holds `max`).
pub async fn refusing(
    db: &Db,
    limit: &Limit,
    subjects: &[&str],
    now: i64,
) -> sqlx::Result<Vec<String>> {
    let keys: Vec<String> = subjects.iter().map(|s| limit.key(s)).collect();
    let full = db
        .rate_limits_at(&keys, i64::from(limit.max), now - limit.window_ms)
        .await?;
    Ok(subjects
        .iter()
        .filter(|s| full.contains(&limit.key(s)))
        .map(|s| (*s).to_owned())
        .collect())
}

/// What [`count_all_in`] counted: each limit's key and the window it was counted in, to give back.
#[derive(Debug, Clone, Default)]
pub struct Counted(Vec<(String, i64)>);

/// Counts one request under each of `hits` in the caller's transaction, in order, stopping at the first that refuses
/// (the caller then rolls back, so a refused request counts nowhere). On PostgreSQL each counted row stays locked until
/// the transaction ends; every caller counts its limits in one fixed order, so two requests never wait on each other
/// in a cycle.
pub async fn count_all_in(
    tx: &mut Tx,
    hits: &[(&Limit, &str)],
    now: i64,
) -> sqlx::Result<Result<Counted, Refused>> {
    let mut counted = Counted::default();
    for (limit, subject) in hits {
        let key = limit.key(subject);
        let hit = tx.hit_rate_limit(&key, now, limit.window_ms).await?;
        if let Err(refused) = judge(limit, hit, now) {
            return Ok(Err(refused));
        }
        counted.0.push((key, hit.window_start));
    }
    Ok(Ok(counted))
}

/// [`count_all_in`] in a transaction of its own: all are counted, or (one refusing) none.
pub async fn count_all(
    db: &Db,
    hits: &[(&Limit, &str)],
    now: i64,
) -> sqlx::Result<Result<Counted, Refused>> {
    let mut tx = db.begin().await?;
    let counted = count_all_in(&mut tx, hits, now).await?;
    match counted {
        Ok(_) => tx.commit().await?,
        Err(_) => tx.rollback().await?,
    }
    Ok(counted)
}

/// Gives back what [`count_all`] counted, for a request that did nothing after all (a code that could not be
/// delivered); a window that restarted meanwhile is left alone.
pub async fn give_back(db: &Db, counted: &Counted) -> sqlx::Result<()> {
    for (key, window_start) in &counted.0 {
        db.give_back_rate_limit(key, *window_start).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_addresses_are_keyed_by_their_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(
            address_key("2001:db8:1:2:aaaa::1"),
            address_key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(address_key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_ne!(address_key("2001:db8:1:3::1"), "2001:db8:1:2::/64");
        assert_eq!(address_key("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(address_key("::1"), "::/64");
        assert_eq!(address_key("203.0.113.7"), "203.0.113.7");
        assert_eq!(address_key("not an address"), "not an address");
    }

    #[test]
    fn a_hit_within_the_limit_passes_and_past_it_waits_for_the_window_to_end() {
        let l = limit("x", KeyKind::Address, 2, 60_000);
        let at = |hits| Hit {
            hits,
            window_start: 1_000,
        };
        assert_eq!(judge(&l, at(2), 5_000), Ok(()));
        let refused = judge(&l, at(3), 5_000).unwrap_err();
        assert_eq!(refused.retry_after_secs, 56);
        // A clock behind the one that started the window still waits at most the window.
        assert_eq!(judge(&l, at(3), -100_000).unwrap_err().retry_after_secs, 60);
        assert_eq!(judge(&l, at(3), 61_000).unwrap_err().retry_after_secs, 1);
    }

    #[test]
    fn the_longest_window_is_a_day_and_every_limit_fits_in_it() {
        assert_eq!(LONGEST_WINDOW_MS, DAY_MS);
        let limits = Limits::from_settings(&Settings::load(None).unwrap());
        let mut names: Vec<_> = limits.all().iter().map(|l| l.name).collect();
        assert!(
            limits
                .all()
                .iter()
                .all(|l| l.window_ms <= LONGEST_WINDOW_MS && l.max > 0)
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), limits.all().len(), "names are distinct");
        // Every limit keyed by borrower has its rows purged with the account.
        let mut by_borrower: Vec<_> = limits
            .all()
            .iter()
            .filter(|l| l.key == KeyKind::Borrower)
            .map(|l| l.name)
            .collect();
        by_borrower.sort_unstable();
        let mut purged = crate::store::kept_records::BORROWER_LIMITS.to_vec();
        purged.sort_unstable();
        assert_eq!(by_borrower, purged);
    }
}
