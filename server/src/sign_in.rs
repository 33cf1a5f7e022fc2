//! Sign-in by one-time code (docs/API-BORROWER.md): the rules on codes and sessions, between HTTP and the store.

use std::sync::Arc;

use kilat_domain::{Market, Phone};

use crate::crypto::{self, Binding, Secrets};
use crate::http::lang::Lang;
use crate::sms::{Channel, CodeMessage, CodeSender};
use crate::store::{Db, now_ms};

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
/// ... and 90 days after sign-in however often it is used, so a stolen token does not live for ever
/// (docs/API-BORROWER.md, Authentication).
pub const SESSION_MAX_AGE_MS: i64 = 90 * 24 * 60 * 60 * 1000;

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

/// A live session's borrower, and how long the session now lives when this use extended it (a cookie carrying it is
/// re-issued with that lifetime).
pub struct LiveSession {
    pub borrower: Borrower,
    pub extended_for_ms: Option<i64>,
}

#[derive(Clone)]
pub struct SignInService {
    db: Db,
    secrets: Secrets,
    sender: Arc<dyn CodeSender>,
}

impl SignInService {
    pub fn new(db: Db, secrets: Secrets, sender: Arc<dyn CodeSender>) -> Self {
        Self {
            db,
            secrets,
            sender,
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
        let now = now_ms();
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
        let text = match lang {
            Lang::En => format!(
                "Your Kilat code is {code}. It expires in 5 minutes. Never share it with anyone."
            ),
            Lang::Id => {
                format!("Kode Kilat Anda {code}. Berlaku 5 menit. Jangan berikan kepada siapa pun.")
            }
        };
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
        let now = now_ms();
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
        // Bound to the id the row gets if it is created now; an existing borrower keeps their own row and id.
        let new_borrower_id = uuid::Uuid::now_v7().to_string();
        let phone_enc = self.secrets.encrypt(
            phone.e164(),
            Binding::BorrowerPhone {
                borrower_id: &new_borrower_id,
            },
        );
        let market = market_code(phone.market());
        let Some((row, is_new)) = self
            .db
            .complete_sign_in(
                &stored.id,
                market,
                &phone_hash,
                &new_borrower_id,
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

    /// The borrower of a live session token, if any: used within `SESSION_IDLE_MS` and opened within
    /// `SESSION_MAX_AGE_MS`.
    pub async fn borrower_for_token(&self, token: &str) -> anyhow::Result<Option<LiveSession>> {
        let now = now_ms();
        let Some(session) = self
            .db
            .session_borrower(
                &crypto::token_hash(token),
                now - SESSION_IDLE_MS,
                now - SESSION_MAX_AGE_MS,
                now,
            )
            .await?
        else {
            return Ok(None);
        };
        let row = session.borrower;
        let market = parse_market(&row.market)
            .ok_or_else(|| anyhow::anyhow!("stored market {:?}", row.market))?;
        let binding = Binding::BorrowerPhone {
            borrower_id: &row.id,
        };
        let phone = Phone::parse(market, &self.secrets.decrypt(&row.phone_enc, binding)?)
            .map_err(|e| anyhow::anyhow!("stored phone no longer parses: {e}"))?;
        Ok(Some(LiveSession {
            borrower: Borrower {
                id: row.id,
                market,
                phone,
                created_at: row.created_at,
            },
            extended_for_ms: session
                .extended
                .then(|| SESSION_IDLE_MS.min(session.created_at + SESSION_MAX_AGE_MS - now)),
        }))
    }

    pub async fn sign_out(&self, token: &str) -> sqlx::Result<()> {
        self.db
            .revoke_session(&crypto::token_hash(token), now_ms())
            .await
    }
}

/// `IN` or `ID`, as stored and as the API writes it.
pub fn market_code(market: Market) -> &'static str {
    match market {
        Market::India => "IN",
        Market::Indonesia => "ID",
    }
}

pub fn parse_market(code: &str) -> Option<Market> {
    match code.trim() {
        "IN" | "in" => Some(Market::India),
        "ID" | "id" => Some(Market::Indonesia),
        _ => None,
    }
}
