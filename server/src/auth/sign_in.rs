//! Borrower sign-in by one-time code (docs/API-BORROWER.md): the rules on codes and sessions.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use kilat_domain::{Code, Market, Phone};

use crate::i18n::{self, Lang};
use crate::infra::clock::Clock;
use crate::infra::crypto::{self, Binding, Secrets};
use crate::infra::limits::{self, Limits};
use crate::infra::sms::{Channel, CodeMessage, CodeSender, SendError};
use crate::services::Services;
use crate::store::Db;
use crate::store::sign_in::{BorrowerRow, NewLoginCode};

/// A code is valid this long.
pub const CODE_TTL_MS: i64 = 5 * 60 * 1000;
/// A new code for the same phone no sooner than this.
pub const RESEND_MS: i64 = limits::CODE_RESEND_MS;
/// Tries compared per code, at most; a wrong code on the last one ends the code, a right one still signs in.
pub const MAX_FAILED_ATTEMPTS: i64 = 5;
/// Codes per phone in a day (the per-address cap and the sign-in attempts per address are settings: `[limits]`).
pub const DAILY_CODES_PER_PHONE: i64 = limits::CODES_PER_PHONE as i64;
/// Sign-in attempts (`POST /login`) from one client address are counted in windows this long.
pub const LOGIN_ATTEMPTS_WINDOW_MS: i64 = limits::SIGN_IN_WINDOW_MS;
/// A borrower session ends after 30 days without use (PRODUCT.md §2).
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 60 * 60 * 1000;
/// ... and 90 days after sign-in however often it is used, so a stolen token does not live for ever
/// (docs/API-BORROWER.md, Authentication).
pub const SESSION_MAX_AGE_MS: i64 = 90 * 24 * 60 * 60 * 1000;

/// Why a borrower's session token no longer signs anyone in ([`SignInService::why_signed_out`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedOut {
    /// Not a session the server knows (never issued, or removed), or one still live.
    Unknown,
    /// Unused too long, or older than a session may be.
    Expired,
    /// Logged out (on this device or another one using the same session).
    LoggedOut,
    /// The borrower deleted the account.
    AccountDeleted,
}

impl SignedOut {
    /// Its code in the `X-Signed-Out` header; none for [`SignedOut::Unknown`].
    pub fn code(self) -> Option<&'static str> {
        match self {
            Self::Unknown => None,
            Self::Expired => Some("expired"),
            Self::LoggedOut => Some("logged_out"),
            Self::AccountDeleted => Some("account_deleted"),
        }
    }

    /// The catalog key of the message that says why; none for [`SignedOut::Unknown`] (the plain "log in again").
    pub fn message_key(self) -> Option<&'static str> {
        match self {
            Self::Unknown => None,
            Self::Expired => Some("error.signed_out_expired"),
            Self::LoggedOut => Some("error.signed_out_logged_out"),
            Self::AccountDeleted => Some("error.signed_out_account_deleted"),
        }
    }
}

const CODE_PURPOSE: &str = "login-code";
const VERIFICATION_PURPOSE: &str = "verification-code";

/// What a one-time code is for: signing in, or a sensitive change a signed-in borrower makes. Each purpose's codes
/// are hashed apart (a sign-in code never verifies a change), share the sending limits, and are compared only for
/// their own purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodePurpose {
    Login,
    /// Changing the bank account the loan is paid out to.
    BankAccount,
}

impl CodePurpose {
    pub const ALL: [CodePurpose; 2] = [CodePurpose::Login, CodePurpose::BankAccount];

    pub fn code(self) -> &'static str {
        match self {
            CodePurpose::Login => "login",
            CodePurpose::BankAccount => "bank_account",
        }
    }

    /// A verification code's purpose as a request names it (sign-in codes have their own endpoints).
    pub fn parse_verification(code: &str) -> Option<Self> {
        match code.trim() {
            "bank_account" => Some(CodePurpose::BankAccount),
            _ => None,
        }
    }

    fn sms_key(self) -> &'static str {
        match self {
            CodePurpose::Login => "sms.code",
            CodePurpose::BankAccount => "sms.bank_account_code",
        }
    }
}

/// What the one-code-a-minute limit counts for a phone (its keyed hash) and purpose.
fn resend_subject(phone_hash: &str, purpose: CodePurpose) -> String {
    format!("{phone_hash}:{}", purpose.code())
}

/// The rows of a phone's sending limits (`phone_hash` is its keyed hash): its minute for each purpose and its day.
/// An account's deletion removes these by their keys (the primary key), not by a search through every limit's row.
pub fn phone_limit_keys(limits: &Limits, phone_hash: &str) -> Vec<String> {
    CodePurpose::ALL
        .iter()
        .map(|purpose| {
            limits
                .code_resend
                .key(&resend_subject(phone_hash, *purpose))
        })
        .chain([limits.codes_per_phone.key(phone_hash)])
        .collect()
}

const PHONE_PURPOSE: &str = "phone";

/// Whether a code that was asked for is on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The provider took it.
    Sent,
    /// The provider may have taken it (its answer never came): the code stays valid, and a new one can be asked for
    /// when the resend wait ends.
    Unconfirmed,
}

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("a code was sent less than a minute ago")]
    ResendTooSoon { retry_after_secs: u64 },
    #[error("the daily limit of codes is reached")]
    DailyLimit,
    #[error("wrong code")]
    CodeInvalid,
    #[error("no valid code: none sent, used, or expired")]
    CodeExpired,
    #[error("too many wrong tries for this code")]
    AttemptsExceeded,
    #[error("too many sign-in attempts from this address")]
    Throttled { retry_after_secs: u64 },
    #[error("the code could not be delivered")]
    Delivery(#[source] anyhow::Error),
    /// A session hand-over code that is unknown, used, expired, or whose session has ended.
    #[error("no valid hand-over code")]
    HandoverInvalid,
    /// A hand-over asked for by a browser (cookie) session: only the native shell hands its session over.
    #[error("a hand-over code is for the native shell's session")]
    HandoverNotAllowed,
    /// A hand-over into a browser already signed in as another borrower: the browser keeps its own session.
    #[error("this browser is signed in as another borrower")]
    SignedInAsAnother,
    #[error(transparent)]
    Store(#[from] sqlx::Error),
}

/// Too many sign-in attempts from one address: try again after this many seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttled {
    pub retry_after_secs: u64,
}

/// A signed-in borrower, with the phone decrypted.
#[derive(Debug, Clone)]
pub struct Borrower {
    pub id: String,
    pub market: Market,
    pub phone: Phone,
    pub created_at: i64,
}

/// What a successful sign-in returns: the borrower, whether they were created now, and the session token (shown
/// once, stored only hashed).
pub struct SignedIn {
    pub borrower: Borrower,
    pub is_new: bool,
    pub token: String,
}

/// A live session's borrower, and how long the session now lives when this use extended it (a cookie carrying it is
/// re-issued with that lifetime).
pub struct LiveSession {
    pub borrower: Borrower,
    pub extended_for_ms: Option<i64>,
}

/// The limits of a live session as of `now` (see [`SignInService::session_window`]).
#[derive(Debug, Clone, Copy)]
pub struct SessionWindow {
    pub now: i64,
    pub idle_since: i64,
    pub created_since: i64,
}

/// Per market (India, Indonesia), the end of the last window of the market's code budget this server said was used
/// up: it says so once a window.
static BUDGET_LOGGED_UNTIL: [AtomicI64; 2] = [AtomicI64::new(0), AtomicI64::new(0)];

/// Borrower sign-in: codes and sessions. It holds no state of its own, only the infrastructure it works with (the
/// database, the keys, the clock, the limiter and the code sender of [`Services`]): `SignInService::of(s)` is free.
#[derive(Clone, Copy)]
pub struct SignInService<'a> {
    pub(super) db: &'a Db,
    pub(super) secrets: &'a Secrets,
    sender: &'a Arc<dyn CodeSender>,
    pub(super) clock: &'a Clock,
    pub(super) limits: &'a Limits,
}

impl<'a> SignInService<'a> {
    pub fn of(s: &'a Services) -> Self {
        Self {
            db: &s.db,
            secrets: &s.secrets,
            sender: &s.sms,
            clock: &s.clock,
            limits: &s.limits,
        }
    }

    /// Sends a fresh sign-in code, unless the last one is under a minute old or a daily cap is reached.
    #[tracing::instrument(skip_all, fields(phone = %phone, channel = channel.as_str()))]
    pub async fn send_code(
        &self,
        phone: &Phone,
        channel: Channel,
        lang: Lang,
        client_addr: &str,
    ) -> Result<Delivery, SignInError> {
        self.send_purpose_code(phone, CodePurpose::Login, channel, lang, client_addr)
            .await
    }

    /// Sends a verification code for a sensitive change to the signed-in borrower's own phone, by SMS, under the
    /// same limits as sign-in codes (they count together).
    #[tracing::instrument(skip_all, fields(borrower = %borrower.id, purpose = purpose.code()))]
    pub async fn send_verification_code(
        &self,
        borrower: &Borrower,
        purpose: CodePurpose,
        lang: Lang,
        client_addr: &str,
    ) -> Result<Delivery, SignInError> {
        self.send_purpose_code(&borrower.phone, purpose, Channel::Sms, lang, client_addr)
            .await
    }

    /// What a code's MAC is taken over: sign-in codes as they always were, a verification code with its purpose.
    fn code_mac_input(phone: &Phone, purpose: CodePurpose, code: &str) -> (&'static str, String) {
        match purpose {
            CodePurpose::Login => (CODE_PURPOSE, format!("{}:{code}", phone.e164())),
            other => (
                VERIFICATION_PURPOSE,
                format!("{}:{}:{code}", phone.e164(), other.code()),
            ),
        }
    }

    async fn send_purpose_code(
        &self,
        phone: &Phone,
        purpose: CodePurpose,
        channel: Channel,
        lang: Lang,
        client_addr: &str,
    ) -> Result<Delivery, SignInError> {
        let now = self.clock.now_ms();
        let phone_hash = self.secrets.mac(PHONE_PURPOSE, phone.e164());
        let code = crypto::random_code();
        let (key, input) = Self::code_mac_input(phone, purpose, &code);
        let code_hash = self.secrets.mac(key, &input);
        let new = NewLoginCode {
            phone_hash: &phone_hash,
            purpose: purpose.code(),
            code_hash: &code_hash,
            channel: channel.as_str(),
            client_addr,
            created_at: now,
            expires_at: now + CODE_TTL_MS,
        };
        // Counted and inserted in one transaction: the phone's minute, the phone's day, the address's day and, for a
        // number no borrower has, the market's ten minutes, in that order (so two senders never wait on each other in a
        // cycle), each one conditional upsert; a refusal rolls every count back, so a refused request uses none of them
        // (docs/ARCHITECTURE.md, "Security: limits"). The market's budget caps the SMS bill against pumping to numbers
        // nobody signed up with; a borrower's own number (signing in again, a verification code) never meets it, so
        // spending it cannot lock the market's borrowers out.
        let l = &self.limits;
        let resend_key = resend_subject(&phone_hash, purpose);
        let address = limits::address_key(client_addr);
        let mut tx = self.db.begin().await?;
        let market = phone.market().code();
        let mut counts = vec![
            (&l.code_resend, resend_key.as_str()),
            (&l.codes_per_phone, phone_hash.as_str()),
            (&l.codes_per_address, address.as_str()),
        ];
        if purpose == CodePurpose::Login && !tx.is_live_borrower_phone(&phone_hash).await? {
            counts.push((&l.codes_per_market, market));
        }
        let counted = match limits::count_all_in(&mut tx, &counts, now).await? {
            Ok(counted) => counted,
            Err(refused) => {
                tx.rollback().await?;
                return Err(if refused.limit == l.code_resend {
                    SignInError::ResendTooSoon {
                        retry_after_secs: refused.retry_after_secs,
                    }
                } else if refused.limit == l.codes_per_market {
                    // New numbers are refused until the window ends: an attack, or a limit sized too small. Said once a
                    // window by this server (the first refusal of a window it sees), not once a refused request.
                    let window_ends =
                        now + i64::try_from(refused.retry_after_secs).unwrap_or(0) * 1000;
                    let slot =
                        &BUDGET_LOGGED_UNTIL[usize::from(phone.market() == Market::Indonesia)];
                    if window_ends - slot.swap(window_ends, Ordering::Relaxed) > 2_000 {
                        tracing::error!(
                            market,
                            max = l.codes_per_market.max,
                            "the market's budget of codes to new numbers is used up: refused until the window ends"
                        );
                    }
                    SignInError::Throttled {
                        retry_after_secs: refused.retry_after_secs,
                    }
                } else {
                    SignInError::DailyLimit
                });
            }
        };
        let id = tx.insert_login_code(&new).await?;
        tx.commit().await?;
        let text = i18n::format(lang, purpose.sms_key(), &[("code", &code)]);
        let message = CodeMessage {
            phone: phone.clone(),
            code,
            channel,
            text,
        };
        match self.sender.send(&message).await {
            Ok(()) => Ok(Delivery::Sent),
            // The code may be on its way: it stays valid, and the sending counts stay used (a new code at once
            // would make this one, arriving late, look wrong).
            Err(SendError::Unknown(err)) => {
                tracing::warn!(error = %err, "the code may not have been sent; it stays valid");
                Ok(Delivery::Unconfirmed)
            }
            Err(SendError::NotSent(err)) => {
                self.db.delete_login_code(&id).await?;
                limits::give_back(self.db, &counted).await?;
                Err(SignInError::Delivery(err))
            }
        }
    }

    /// Checks the code in constant time; on success uses it, creates the borrower on first sign-in and opens a
    /// session.
    #[tracing::instrument(skip_all, fields(phone = %phone))]
    pub async fn sign_in(
        &self,
        phone: &Phone,
        code: &str,
        client_addr: &str,
    ) -> Result<SignedIn, SignInError> {
        // Counted before the code is looked at, so a refused attempt uses none of the code's tries.
        if let Err(throttled) = self.admit_login_attempt(client_addr).await? {
            return Err(SignInError::Throttled {
                retry_after_secs: throttled.retry_after_secs,
            });
        }
        let now = self.clock.now_ms();
        let phone_hash = self.secrets.mac(PHONE_PURPOSE, phone.e164());
        let stored_id = self
            .try_code(phone, &phone_hash, CodePurpose::Login, code, now)
            .await?;
        let token = crypto::random_token();
        // Bound to the id the row gets if it is created now; an existing borrower keeps their own row and id.
        let new_borrower_id = uuid::Uuid::now_v7().to_string();
        let phone_enc = self.secrets.encrypt(
            phone.e164(),
            Binding::BorrowerPhone {
                borrower_id: &new_borrower_id,
            },
        );
        let Some((row, is_new)) = self
            .db
            .complete_sign_in(
                &stored_id,
                phone.market(),
                &phone_hash,
                &new_borrower_id,
                &phone_enc,
                &phone.masked(),
                &crate::certification::fingerprints::own_phone(self.secrets, phone.e164()),
                &crypto::token_hash(&token),
                now,
            )
            .await?
        else {
            return Err(SignInError::CodeExpired);
        };
        let borrower = Borrower {
            id: row.id,
            market: phone.market(),
            phone: phone.clone(),
            created_at: row.created_at,
        };
        tracing::info!(borrower = %borrower.id, is_new, "signed in");
        Ok(SignedIn {
            borrower,
            is_new,
            token,
        })
    }

    /// Checks a verification code for `purpose` sent to the borrower's phone: one of the code's tries is used, as for
    /// sign-in. Answers the code's id, which the caller uses (`Tx::use_login_code`) in the transaction that makes the
    /// change, so a code allows one change.
    pub async fn check_verification_code(
        &self,
        borrower: &Borrower,
        purpose: CodePurpose,
        code: &str,
    ) -> Result<String, SignInError> {
        let now = self.clock.now_ms();
        let phone_hash = self.secrets.mac(PHONE_PURPOSE, borrower.phone.e164());
        self.try_code(&borrower.phone, &phone_hash, purpose, code, now)
            .await
    }

    /// The phone's latest live code for `purpose`, one try reserved and compared in constant time.
    async fn try_code(
        &self,
        phone: &Phone,
        phone_hash: &str,
        purpose: CodePurpose,
        code: &str,
        now: i64,
    ) -> Result<String, SignInError> {
        let stored = self
            .db
            .latest_login_code(phone_hash, purpose.code())
            .await?;
        let Some(stored) = stored.filter(|c| c.consumed_at.is_none() && c.expires_at > now) else {
            return Err(SignInError::CodeExpired);
        };
        if stored.failed_attempts >= MAX_FAILED_ATTEMPTS {
            return Err(SignInError::AttemptsExceeded);
        }
        // The try is counted before the comparison, in one conditional update, so that however many tries arrive at
        // once no more than MAX_FAILED_ATTEMPTS are ever compared. A right code on the last allowed try still counts;
        // a wrong one on it is answered code_attempts_exceeded, as nothing can be tried after it.
        let Some(this_try) = self
            .db
            .reserve_login_code_try(&stored.id, now, MAX_FAILED_ATTEMPTS)
            .await?
        else {
            return Err(self.why_no_try(&stored.id, now).await?);
        };
        let (key, input) = Self::code_mac_input(phone, purpose, code);
        if !self.secrets.mac_matches(key, &input, &stored.code_hash) {
            return Err(if this_try >= MAX_FAILED_ATTEMPTS {
                SignInError::AttemptsExceeded
            } else {
                SignInError::CodeInvalid
            });
        }
        Ok(stored.id)
    }

    /// Why a code's try could not be reserved: it was used or expired meanwhile, or its tries ran out.
    async fn why_no_try(&self, code_id: &str, now: i64) -> Result<SignInError, SignInError> {
        Ok(match self.db.login_code(code_id).await? {
            Some(c) if c.consumed_at.is_none() && c.expires_at > now => {
                SignInError::AttemptsExceeded
            }
            _ => SignInError::CodeExpired,
        })
    }

    /// Counts a sign-in attempt from a client address, or refuses it when the address made `[limits]
    /// sign_ins_per_address` in the window (`LOGIN_ATTEMPTS_WINDOW_MS`): wrong codes spread over many phones. Counted in
    /// the database, so the limit holds across servers sharing it.
    pub async fn admit_login_attempt(
        &self,
        client_addr: &str,
    ) -> sqlx::Result<Result<(), Throttled>> {
        let refused = limits::count(
            self.db,
            &self.limits.sign_ins_per_address,
            &limits::address_key(client_addr),
            self.clock.now_ms(),
        )
        .await?;
        Ok(refused.map_err(|r| Throttled {
            retry_after_secs: r.retry_after_secs,
        }))
    }

    /// Why a token signs nobody in, as far as the server knows: the account was deleted, the session was logged out,
    /// or it expired (unused for `SESSION_IDLE_MS` or older than `SESSION_MAX_AGE_MS`). A token never issued, or a
    /// session still live (read again meanwhile), is `Unknown`.
    pub async fn why_signed_out(&self, token: &str) -> anyhow::Result<SignedOut> {
        let Some(row) = self.db.session_end(&crypto::token_hash(token)).await? else {
            return Ok(SignedOut::Unknown);
        };
        let window = self.session_window();
        Ok(if row.deleted_at.is_some() {
            SignedOut::AccountDeleted
        } else if row.revoked_at.is_some() {
            SignedOut::LoggedOut
        } else if row.last_seen_at < window.idle_since || row.created_at < window.created_since {
            SignedOut::Expired
        } else {
            SignedOut::Unknown
        })
    }

    /// The borrower of a live session token, if any: used within `SESSION_IDLE_MS` and opened within
    /// `SESSION_MAX_AGE_MS`.
    pub async fn borrower_for_token(&self, token: &str) -> anyhow::Result<Option<LiveSession>> {
        let window = self.session_window();
        let token_hash = crypto::token_hash(token);
        let Some(session) = self
            .db
            .session_borrower(&token_hash, window.idle_since, window.created_since)
            .await?
        else {
            return Ok(None);
        };
        let extended_for_ms = self
            .keep_alive(
                &token_hash,
                window,
                session.created_at,
                session.last_seen_at,
            )
            .await?;
        Ok(Some(LiveSession {
            borrower: unseal_borrower(self.secrets, session.borrower)?,
            extended_for_ms,
        }))
    }

    /// The limits a session read now must be within: used since `idle_since`, opened since `created_since`. A read
    /// that joins the session to what the request shows (the order list, home) applies them in the same statement.
    pub fn session_window(&self) -> SessionWindow {
        let now = self.clock.now_ms();
        SessionWindow {
            now,
            idle_since: now - SESSION_IDLE_MS,
            created_since: now - SESSION_MAX_AGE_MS,
        }
    }

    /// After a live session was read within `window`: marks it used now when its last use is over a minute old (one
    /// write a minute at most per session, not one per request), and then says how long it lives from now (a cookie
    /// carrying it is re-issued with that lifetime).
    pub async fn keep_alive(
        &self,
        token_hash: &str,
        window: SessionWindow,
        session_created_at: i64,
        last_seen_at: i64,
    ) -> sqlx::Result<Option<i64>> {
        let now = window.now;
        if now - last_seen_at <= 60_000 {
            return Ok(None);
        }
        self.db.touch_session(token_hash, now).await?;
        Ok(Some(
            SESSION_IDLE_MS.min(session_created_at + SESSION_MAX_AGE_MS - now),
        ))
    }

    pub async fn sign_out(&self, token: &str) -> sqlx::Result<()> {
        self.db
            .revoke_session(&crypto::token_hash(token), self.clock.now_ms())
            .await
    }
}

/// A stored borrower with the phone decrypted (it is sealed to the borrower's id).
pub fn unseal_borrower(secrets: &Secrets, row: BorrowerRow) -> anyhow::Result<Borrower> {
    let phone = unseal_phone(secrets, &row.id, row.market, &row.phone_enc)?;
    Ok(Borrower {
        id: row.id,
        market: row.market,
        phone,
        created_at: row.created_at,
    })
}

/// A borrower's stored phone, decrypted (it is sealed to the borrower's id) and parsed.
pub fn unseal_phone(
    secrets: &Secrets,
    borrower_id: &str,
    market: Market,
    phone_enc: &str,
) -> anyhow::Result<Phone> {
    let e164 = secrets.decrypt(phone_enc, Binding::BorrowerPhone { borrower_id })?;
    Phone::parse(market, &e164).map_err(|e| anyhow::anyhow!("stored phone no longer parses: {e}"))
}

/// `IN` or `ID`, as stored and as the API writes it.
pub fn market_code(market: Market) -> &'static str {
    market.code()
}

/// A market as a request names it: its code, in either case.
pub fn parse_market(code: &str) -> Option<Market> {
    Market::from_code(&code.trim().to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::limits::KeyKind;
    use crate::settings::Settings;

    /// An account's deletion forgets its phone's limits by these keys: each limit keyed by a phone has one (the
    /// minute's for every purpose), and each key is one a code request counts.
    #[test]
    fn a_phones_limit_keys_cover_every_limit_keyed_by_a_phone() {
        let limits = Limits::from_settings(&Settings::load(None).expect("the defaults load"));
        let keys = phone_limit_keys(&limits, "hash");
        for limit in limits.all().into_iter().filter(|l| l.key == KeyKind::Phone) {
            assert!(
                keys.iter()
                    .any(|k| k.starts_with(&format!("{}:hash", limit.name))),
                "{} has no key in {keys:?}",
                limit.name
            );
        }
        for purpose in CodePurpose::ALL {
            assert!(keys.contains(&limits.code_resend.key(&resend_subject("hash", purpose))));
        }
        assert_eq!(keys.len(), CodePurpose::ALL.len() + 1);
    }
}
