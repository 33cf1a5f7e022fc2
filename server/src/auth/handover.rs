//! The native shell's hand-over of its session to the web app it opens (docs/API-BORROWER.md, "Handing a session to
//! the web app"): a one-time code, short-lived and stored hashed, exchanged once for a browser session of the same
//! borrower, and never into a browser that is signed in as somebody else.
//!
//! The shell used to open `/app/?sessionId=<token>`, and the web app sent that token as `X-Session-Id`, which beat the
//! browser's cookie: a link could sign a victim into the attacker's account (security report N2). A code in the URL is
//! worth nothing once used or a minute old, and it can never replace the session a browser already has.

use crate::error::Error;
use crate::infra::crypto;
use crate::infra::limits::address_key;

use super::sign_in::{Borrower, SESSION_IDLE_MS, SESSION_MAX_AGE_MS, SignInError, SignInService};
use super::unseal_borrower;

/// A hand-over code is valid this long: the shell opens the web app at once.
pub const HANDOVER_TTL_MS: i64 = 60 * 1000;

/// What an exchange did.
pub enum Exchanged {
    /// The browser had no session: it now has one of its own, `token`, living `lifetime_ms` (at most what the native
    /// session had left before its absolute limit).
    Opened {
        borrower: Borrower,
        token: String,
        lifetime_ms: i64,
    },
    /// The browser was already signed in as the same borrower: nothing changes.
    AlreadySignedIn { borrower: Borrower },
}

impl SignInService<'_> {
    /// A one-time code for the native session `token` (which the caller authenticated by `X-Session-Id`) asking from
    /// `client` (its address): shown once, stored as its SHA-256, valid for [`HANDOVER_TTL_MS`], and only from the same
    /// address ([`address_key`]: an IPv4 address, an IPv6 /64), which the shell's web view has on the same device.
    #[tracing::instrument(skip_all)]
    pub async fn issue_handover(&self, token: &str, client: &str) -> Result<String, Error> {
        let now = self.clock.now_ms();
        // Counted before anything is written: each code is a row, and each exchange a browser session.
        crate::infra::limits::count(
            self.db,
            &self.limits.handovers_per_session,
            &crypto::token_hash(token),
            now,
        )
        .await?
        .map_err(crate::infra::limits::Refused::rate_limited)?;
        // 256 random bits: a code cannot be guessed within its minute, so a plain hash is enough to store it.
        let code = crypto::random_token();
        let issued = self
            .db
            .insert_handover(
                &crypto::token_hash(&code),
                &crypto::token_hash(token),
                &crypto::token_hash(&address_key(client)),
                now,
                now + HANDOVER_TTL_MS,
            )
            .await?;
        if !issued {
            // The session was revoked between the caller's check and now.
            return Err(SignInError::HandoverInvalid.into());
        }
        Ok(code)
    }

    /// Exchanges a hand-over code for a browser session. `browser_token` is the session cookie the browser sent, if
    /// any: when it names a live session of another borrower the exchange is refused ([`SignInError::SignedInAsAnother`])
    /// and the browser keeps its session; of the same borrower, it is kept as it is. A code exchanged from another
    /// address than it was issued to is refused like a used one: a link carrying somebody else's code signs nobody
    /// in. The code is used up in every case, in one conditional statement, so of any number of simultaneous
    /// exchanges exactly one succeeds.
    #[tracing::instrument(skip_all)]
    pub async fn exchange_handover(
        &self,
        code: &str,
        browser_token: Option<&str>,
        client: &str,
    ) -> Result<Exchanged, Error> {
        let current = match browser_token {
            Some(token) => self.borrower_for_token(token).await?.map(|s| s.borrower),
            None => None,
        };
        let window = self.session_window();
        let token = crypto::random_token();
        // A new session only for a browser that has none: one signed in keeps its own.
        let open = current.is_none();
        let Some(redeemed) = self
            .db
            .redeem_handover(
                &crypto::token_hash(code),
                &crypto::token_hash(&address_key(client)),
                window.now,
                window.idle_since,
                window.created_since,
                &crypto::token_hash(&token),
                |_| open,
            )
            .await?
        else {
            return Err(SignInError::HandoverInvalid.into());
        };
        let borrower = unseal_borrower(self.secrets, redeemed.borrower)?;
        match current {
            None => {
                tracing::info!(borrower = %borrower.id, "session handed over to the web app");
                Ok(Exchanged::Opened {
                    borrower,
                    token,
                    lifetime_ms: SESSION_IDLE_MS
                        .min(redeemed.session_created_at + SESSION_MAX_AGE_MS - window.now),
                })
            }
            Some(current) if current.id == borrower.id => {
                Ok(Exchanged::AlreadySignedIn { borrower: current })
            }
            Some(_) => {
                tracing::warn!(
                    borrower = %borrower.id,
                    "hand-over refused: the browser is signed in as another borrower"
                );
                Err(SignInError::SignedInAsAnother.into())
            }
        }
    }
}
