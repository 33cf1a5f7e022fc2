//! Borrower sign-in by one-time code (docs/API-BORROWER.md): the rules on codes and sessions.

use std::sync::Arc;

use kilat_domain::{Code, Market, Phone};

use crate::clock::Clock;
use crate::crypto::{self, Secrets};
use crate::i18n::{self, Lang};
use crate::sms::{Channel, CodeMessage, CodeSender};
use crate::store::Db;

/// A code is valid this long.
pub const CODE_TTL_MS: i64 = 5 * 60 * 1000;
/// A new code for the same phone no sooner than this.
pub const RESEND_MS: i64 = 60 * 1000;
/// Wrong tries allowed per code.
pub const MAX_FAILED_ATTEMPTS: i64 = 5;
/// Codes per phone, and per client address, in 24 hours.
pub const DAILY_CODES_PER_PHONE: i64 = 10;
pub const DAILY_CODES_PER_ADDRESS: i64 = 30;
/// A borrower session ends after 30 days without use (PRODUCT.md §2).
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 60 * 60 * 1000;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
const CODE_PURPOSE: &str = "login-code";
const PHONE_PURPOSE: &str = "phone";

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
    #[error("the code could not be delivered")]
    Delivery(#[source] anyhow::Error),
    #[error(transparent)]
    Store(#[from] sqlx::Error),
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

#[derive(Clone)]
pub struct SignInService {
    db: Db,
    secrets: Secrets,
    sender: Arc<dyn CodeSender>,
    clock: Clock,
}

impl SignInService {
    pub fn new(db: Db, secrets: Secrets, sender: Arc<dyn CodeSender>, clock: Clock) -> Self {
        Self {
            db,
            secrets,
            sender,
            clock,
        }
    }

    /// Sends a fresh code, unless the last one is under a minute old or a daily cap is reached.
    #[tracing::instrument(skip_all, fields(phone = %phone, channel = channel.as_str()))]
    pub async fn send_code(
        &self,
        phone: &Phone,
        channel: Channel,
        lang: Lang,
        client_addr: &str,
    ) -> Result<(), SignInError> {
        let now = self.clock.now_ms();
        let phone_hash = self.secrets.mac(PHONE_PURPOSE, phone.e164());
        if let Some(last) = self.db.latest_login_code(&phone_hash).await? {
            let wait = last.created_at + RESEND_MS - now;
            if wait > 0 {
                return Err(SignInError::ResendTooSoon {
                    retry_after_secs: u64::try_from((wait + 999) / 1000).unwrap_or(60),
                });
            }
        }
        let (by_phone, by_addr) = self
            .db
            .count_login_codes_since(&phone_hash, client_addr, now - DAY_MS)
            .await?;
        if by_phone >= DAILY_CODES_PER_PHONE || by_addr >= DAILY_CODES_PER_ADDRESS {
            return Err(SignInError::DailyLimit);
        }
        let code = crypto::random_code();
        let code_hash = self
            .secrets
            .mac(CODE_PURPOSE, &format!("{}:{code}", phone.e164()));
        let id = self
            .db
            .insert_login_code(&crate::store::sign_in::NewLoginCode {
                phone_hash: &phone_hash,
                code_hash: &code_hash,
                channel: channel.as_str(),
                client_addr,
                created_at: now,
                expires_at: now + CODE_TTL_MS,
            })
            .await?;
        let text = i18n::format(lang, "sms.code", &[("code", &code)]);
        let message = CodeMessage {
            phone: phone.clone(),
            code,
            channel,
            text,
        };
        if let Err(err) = self.sender.send(&message).await {
            self.db.delete_login_code(&id).await?;
            return Err(SignInError::Delivery(err));
        }
        Ok(())
    }

    /// Checks the code in constant time; on success uses it, creates the borrower on first sign-in and opens a
    /// session.
    #[tracing::instrument(skip_all, fields(phone = %phone))]
    pub async fn sign_in(&self, phone: &Phone, code: &str) -> Result<SignedIn, SignInError> {
        let now = self.clock.now_ms();
        let phone_hash = self.secrets.mac(PHONE_PURPOSE, phone.e164());
        let stored = self.db.latest_login_code(&phone_hash).await?;
        let Some(stored) = stored.filter(|c| c.consumed_at.is_none() && c.expires_at > now) else {
            return Err(SignInError::CodeExpired);
        };
        if stored.failed_attempts >= MAX_FAILED_ATTEMPTS {
            return Err(SignInError::AttemptsExceeded);
        }
        if !self.secrets.mac_matches(
            CODE_PURPOSE,
            &format!("{}:{code}", phone.e164()),
            &stored.code_hash,
        ) {
            self.db.record_failed_login_attempt(&stored.id).await?;
            return Err(if stored.failed_attempts + 1 >= MAX_FAILED_ATTEMPTS {
                SignInError::AttemptsExceeded
            } else {
                SignInError::CodeInvalid
            });
        }
        let token = crypto::random_token();
        let phone_enc = self.secrets.encrypt(phone.e164());
        let market = market_code(phone.market());
        let Some((row, is_new)) = self
            .db
            .complete_sign_in(
                &stored.id,
                market,
                &phone_hash,
                &phone_enc,
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

    /// The borrower of a live session token, if any.
    pub async fn borrower_for_token(&self, token: &str) -> anyhow::Result<Option<Borrower>> {
        let now = self.clock.now_ms();
        let Some(row) = self
            .db
            .session_borrower(&crypto::token_hash(token), now - SESSION_IDLE_MS, now)
            .await?
        else {
            return Ok(None);
        };
        let market = parse_market(&row.market)
            .ok_or_else(|| anyhow::anyhow!("stored market {:?}", row.market))?;
        let phone = Phone::parse(market, &self.secrets.decrypt(&row.phone_enc)?)
            .map_err(|e| anyhow::anyhow!("stored phone no longer parses: {e}"))?;
        Ok(Some(Borrower {
            id: row.id,
            market,
            phone,
            created_at: row.created_at,
        }))
    }

    pub async fn sign_out(&self, token: &str) -> sqlx::Result<()> {
        self.db
            .revoke_session(&crypto::token_hash(token), self.clock.now_ms())
            .await
    }
}

/// `IN` or `ID`, as stored and as the API writes it.
pub fn market_code(market: Market) -> &'static str {
    market.code()
}

/// A market as a request names it: its code, in either case.
pub fn parse_market(code: &str) -> Option<Market> {
    Market::from_code(&code.trim().to_ascii_uppercase())
}
