//! Operators of the console (PRODUCT.md §6): accounts with roles, sign-in by password with a lockout, and 12-hour
//! sessions that carry a CSRF token.

use std::sync::LazyLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use serde::Serialize;
use subtle::ConstantTimeEq;

use kilat_domain::Market;
use kilat_domain::codes::Code;

use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::bounds::Permit;
use crate::infra::clock::Clock;
use crate::infra::crypto;
use crate::infra::limits;
use crate::services::Services;
use crate::store::Db;
use crate::store::audit::NewAuditEntry;
use crate::store::operators::{NewOperator, OperatorRow};

/// Password checks an operator gets from one client address in [`LOCKOUT_MS`]: the check that reaches it is still
/// compared (a right password signs in), every later one from that address is refused unseen until the window ends.
pub const MAX_PASSWORD_CHECKS: i64 = limits::PASSWORD_CHECKS_PER_ADDRESS as i64;
/// The window of the password checks.
pub const LOCKOUT_MS: i64 = limits::PASSWORD_CHECKS_WINDOW_MS;
/// An address an operator signed in from this recently is a known one: a stranger's failures never refuse it
/// (docs/ARCHITECTURE.md, "Security: limits").
pub const KNOWN_ADDRESS_MS: i64 = 90 * 24 * 60 * 60 * 1000;
/// A console session ends 12 hours after sign-in, however it is used (PRODUCT.md §6).
pub const SESSION_MS: i64 = 12 * 60 * 60 * 1000;
/// The shortest password `create` accepts.
pub const MIN_PASSWORD_CHARS: usize = 12;
const MAX_PASSWORD_CHARS: usize = 256;
const MAX_USERNAME_CHARS: usize = 64;

/// What an operator may do; an operator may hold several roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Operators and settings; reads the audit trail.
    Admin,
    /// Works the review queue: approves and rejects, sees ID and account numbers unmasked (each view audited).
    Reviewer,
    /// Payouts and repayments.
    Finance,
    /// Reads orders and the audit trail, masked, to answer borrowers.
    Support,
    /// Works the overdue queue: sees the loan's figures and the borrower's phone (the full number on request, each
    /// view audited), logs contact attempts and promises to pay; never ID numbers, bank accounts or emergency
    /// contacts (docs/API-CONSOLE.md, "Collections").
    Collections,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Admin,
        Role::Reviewer,
        Role::Finance,
        Role::Support,
        Role::Collections,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Reviewer => "reviewer",
            Role::Finance => "finance",
            Role::Support => "support",
            Role::Collections => "collections",
        }
    }

    pub fn parse(code: &str) -> Option<Role> {
        let code = code.trim().to_ascii_lowercase();
        Role::ALL.into_iter().find(|r| r.code() == code)
    }

    /// A comma-separated list (`reviewer,support`) as a set of roles, in their order; an unknown role, an empty item
    /// or an empty list is an error naming the problem.
    pub fn parse_list(list: &str) -> Result<Vec<Role>, String> {
        let mut roles = Vec::new();
        for item in list.split(',') {
            let item = item.trim();
            if item.is_empty() {
                return Err(format!("an empty role in {list:?}"));
            }
            let role = Role::parse(item).ok_or_else(|| {
                format!("unknown role {item:?}: choose from admin, reviewer, finance, support, collections")
            })?;
            if !roles.contains(&role) {
                roles.push(role);
            }
        }
        roles.sort();
        Ok(roles)
    }

    /// Roles as stored: their codes joined by commas.
    pub(crate) fn join(roles: &[Role]) -> String {
        roles.iter().map(|r| r.code()).collect::<Vec<_>>().join(",")
    }

    /// Roles as stored, read back; an unknown code (a role removed since) is skipped.
    pub(crate) fn split(stored: &str) -> Vec<Role> {
        let mut roles: Vec<Role> = stored.split(',').filter_map(Role::parse).collect();
        roles.sort();
        roles.dedup();
        roles
    }
}

/// The markets an operator sees, as stored: their codes joined by commas (`IN,ID`), in `Code::ALL`'s order.
pub(crate) fn join_markets(markets: &[Market]) -> String {
    Market::ALL
        .iter()
        .filter(|m| markets.contains(m))
        .map(|m| m.code())
        .collect::<Vec<_>>()
        .join(",")
}

/// Stored markets read back, in `Code::ALL`'s order; an unknown code is skipped.
pub(crate) fn split_markets(stored: &str) -> Vec<Market> {
    let given: Vec<Market> = stored
        .split(',')
        .filter_map(|c| Market::from_code(c.trim()))
        .collect();
    Market::ALL
        .iter()
        .copied()
        .filter(|m| given.contains(m))
        .collect()
}

/// A comma-separated list of market codes (`IN`, `id,IN`) for the command line; an unknown or empty item, or an empty
/// list, is an error naming the problem.
pub fn parse_market_list(list: &str) -> Result<Vec<Market>, String> {
    let mut markets = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        let market = super::sign_in::parse_market(item)
            .ok_or_else(|| format!("unknown market {item:?}: choose from IN, ID"))?;
        if !markets.contains(&market) {
            markets.push(market);
        }
    }
    Ok(split_markets(&join_markets(&markets)))
}

/// Why an operator's sign-in failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OperatorSignInError {
    /// Unknown username, disabled account or wrong password: the answer does not say which.
    #[error("wrong username or password")]
    CredentialsInvalid,
    #[error("too many wrong passwords: the account is locked")]
    Locked { retry_after_secs: u64 },
}

/// A signed-in operator.
#[derive(Debug, Clone)]
pub struct Operator {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
    /// The markets whose borrowers, orders, payments and records the operator sees (at least one).
    pub markets: Vec<Market>,
    /// True while the operator signs in with a password an admin set: until they choose their own, only `me`,
    /// `logout` and `password` answer (403 `password_change_required`).
    pub password_change_required: bool,
    csrf_hash: String,
}

impl Operator {
    pub fn has(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }

    /// `Ok` when the operator holds one of `roles`; else the refusal `forbidden`.
    pub fn require_any(&self, roles: &[Role]) -> Result<(), Error> {
        if roles.iter().any(|r| self.has(*r)) {
            Ok(())
        } else {
            Err(Refusal::RoleMissing.into())
        }
    }

    /// True when the operator may see the records of `market`. The one test of an operator's markets: every console
    /// capability goes through it, or through [`Operator::require_market`], [`Operator::see`] or
    /// [`Operator::market_filter`], which use it.
    pub fn may_see(&self, market: Market) -> bool {
        self.markets.contains(&market)
    }

    /// A market the request names (a queue's, a file's, an export's): `Ok` when the operator sees it; else a field
    /// error on `market` (`field.market_not_yours`). A market's existence is no secret; its records are.
    pub fn require_market(&self, market: Market) -> Result<Market, Error> {
        if self.may_see(market) {
            Ok(market)
        } else {
            Err(Error::field(
                "market",
                FieldProblem::new("field.market_not_yours"),
            ))
        }
    }

    /// A record found by its number or id (an order, a payment, a ticket): `Ok` when its market is the operator's;
    /// else `not_found`, exactly as if it did not exist, so its existence is not revealed.
    pub fn see(&self, market: Market) -> Result<(), Error> {
        if self.may_see(market) {
            Ok(())
        } else {
            Err(Error::NotFound)
        }
    }

    /// An optional market filter as the store takes it: a market given must be the operator's
    /// ([`Operator::require_market`]); none given means every market the operator sees, which is `None` (no filter)
    /// only for an operator of every market. An operator of no market (a stored list with no market the server knows)
    /// sees nothing: refused (`forbidden`), never turned into "no filter".
    pub fn market_filter(&self, market: Option<Market>) -> Result<Option<Market>, Error> {
        match market {
            Some(market) => self.require_market(market).map(Some),
            None if Market::ALL.iter().all(|m| self.may_see(*m)) => Ok(None),
            None => self
                .markets()
                .next()
                .map(Some)
                .ok_or_else(|| Refusal::RoleMissing.into()),
        }
    }

    /// The markets the operator sees, in `Code::ALL`'s order: the per-market counts list these only.
    pub fn markets(&self) -> impl Iterator<Item = Market> + '_ {
        Market::ALL.iter().copied().filter(|m| self.may_see(*m))
    }

    /// True when `token` is this session's CSRF token, compared in constant time (as hashes).
    pub fn csrf_matches(&self, token: &str) -> bool {
        let given = crypto::token_hash(token);
        given.as_bytes().ct_eq(self.csrf_hash.as_bytes()).into()
    }

    fn of(row: OperatorRow, csrf_hash: String) -> Self {
        Self {
            roles: Role::split(&row.roles),
            markets: split_markets(&row.markets),
            password_change_required: row.password_change_required != 0,
            id: row.id,
            username: row.username,
            csrf_hash,
        }
    }
}

/// A successful sign-in: the operator, the session token (for the cookie) and the CSRF token, each shown once and
/// stored only hashed.
pub struct OperatorSignedIn {
    pub operator: Operator,
    pub token: String,
    pub csrf_token: String,
}

/// A new operator's account as created.
#[derive(Debug, Clone)]
pub struct Created {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
    pub markets: Vec<Market>,
}

/// Creates an operator of every market with a password (hashed with Argon2id) and at least one role. Usernames are
/// lower-cased.
pub async fn create(
    s: &Services,
    username: &str,
    password: &str,
    roles: &[Role],
) -> Result<Created, Error> {
    create_with(
        &s.db,
        &s.clock,
        username,
        password,
        roles,
        Market::ALL,
        None,
    )
    .await
}

/// `create` of an operator who sees only `markets`.
pub async fn create_in(
    s: &Services,
    username: &str,
    password: &str,
    roles: &[Role],
    markets: &[Market],
) -> Result<Created, Error> {
    create_with(&s.db, &s.clock, username, password, roles, markets, None).await
}

/// `create` with only the handles it needs, for the command line (`kilat operator create`), which starts no server;
/// `by` is the admin who creates it in the console (audited as theirs; the command line's as the system's). A
/// password an admin sets in the console is one the operator must change at their first sign-in; the command line's
/// (typed by the person who runs it) and development's demo admin's are not.
pub async fn create_with(
    db: &Db,
    clock: &Clock,
    username: &str,
    password: &str,
    roles: &[Role],
    markets: &[Market],
    by: Option<&str>,
) -> Result<Created, Error> {
    create_checked(
        db,
        clock,
        NewAccount {
            username,
            password,
            roles,
            markets,
        },
        by,
        FieldErrors::default(),
    )
    .await
}

/// What an operator is created with.
pub(crate) struct NewAccount<'a> {
    pub username: &'a str,
    pub password: &'a str,
    pub roles: &'a [Role],
    pub markets: &'a [Market],
}

/// `create_with`, reporting `errors` found by the caller (a role it could not read) together with its own.
pub(crate) async fn create_checked(
    db: &Db,
    clock: &Clock,
    new: NewAccount<'_>,
    by: Option<&str>,
    mut errors: FieldErrors,
) -> Result<Created, Error> {
    let NewAccount {
        username,
        password,
        roles,
        markets,
    } = new;
    let username = username.trim().to_ascii_lowercase();
    if username.is_empty() {
        errors.add("username", FieldProblem::required());
    } else if username.chars().count() > MAX_USERNAME_CHARS {
        errors.add("username", FieldProblem::too_long(MAX_USERNAME_CHARS));
    } else if !username
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        errors.add("username", FieldProblem::new("field.username"));
    }
    check_password(password, &mut errors);
    if roles.is_empty() {
        errors.add("roles", FieldProblem::new("field.roles_required"));
    }
    if markets.is_empty() {
        errors.add("markets", FieldProblem::new("field.markets_required"));
    }
    errors.into_result()?;
    let markets = join_markets(markets);
    let mut roles = roles.to_vec();
    roles.sort();
    roles.dedup();
    let password_hash = hash_password(password.to_owned()).await?;
    let now = clock.now_ms();
    let mut tx = db.begin().await?;
    let id = tx
        .insert_operator(&NewOperator {
            username: &username,
            password_hash: &password_hash,
            roles: &Role::join(&roles),
            markets: &markets,
            password_change_required: by.is_some(),
            now,
        })
        .await?
        .map_err(|_| Error::field("username", FieldProblem::new("field.username_taken")))?;
    // The console's creations are audited as the admin's; the command line's and development's demo admin are in the
    // log only.
    if let Some(by) = by {
        let after =
            serde_json::json!({"username": username, "roles": Role::join(&roles), "markets": markets, "enabled": true})
                .to_string();
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "operator",
            actor_id: Some(by),
            action: "operator.create",
            entity: "operator",
            entity_id: &id,
            before_json: None,
            after_json: Some(&after),
            at: now,
        })
        .await?;
    }
    tx.commit().await?;
    tracing::info!(operator = %id, %username, roles = %Role::join(&roles), "operator created");
    Ok(Created {
        id,
        username,
        roles,
        markets: split_markets(&markets),
    })
}

/// A new password's length rule: at least `MIN_PASSWORD_CHARS`, at most 256 characters.
pub(crate) fn check_password(password: &str, errors: &mut FieldErrors) {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        errors.add(
            "password",
            FieldProblem::new("field.too_short").with("min", MIN_PASSWORD_CHARS),
        );
    } else if chars > MAX_PASSWORD_CHARS {
        errors.add("password", FieldProblem::too_long(MAX_PASSWORD_CHARS));
    }
}

/// Signs an operator in. Each password check is counted before the password is compared, by the one limiter
/// (`crate::infra::limits`), so a burst of guesses gets a bounded number compared:
/// - per operator and client address, [`MAX_PASSWORD_CHECKS`] in [`LOCKOUT_MS`]: a burst from one source compares at
///   most five, and a stranger's failures never refuse anyone at another address;
/// - per operator, `[limits] password_checks_per_account` in [`LOCKOUT_MS`] from addresses the operator has not signed
///   in from within [`KNOWN_ADDRESS_MS`]: guesses spread over many addresses; the staff's own addresses are exempt,
///   so such a burst cannot deny them the console (docs/ARCHITECTURE.md, "Security: limits").
///
/// Both are counted together in one transaction, or (one refusing) neither. A right password gives its checks back
/// (it was no guess), forgets its address's count and marks the address known. An unknown username is compared against
/// a dummy hash, and its checks are counted and locked as a real one's from a new address, so it takes as long as a
/// wrong password. Every comparison waits for its turn among `bounds.password_hashes` (19 MiB each), and is answered
/// `server_busy` when none comes in `bounds.wait_ms`, before the checks are counted.
///
/// Before anything else the attempt is counted against the client address (`[limits] console_sign_ins_per_address`
/// in ten minutes, then `rate_limited`): every attempt costs an Argon2 computation, and the per-account limits do not
/// hold back guesses spread over many usernames.
#[tracing::instrument(skip_all)]
pub async fn sign_in(
    s: &Services,
    username: &str,
    password: &str,
    client_addr: &str,
) -> Result<OperatorSignedIn, Error> {
    let now = s.clock.now_ms();
    let address = limits::address_key(client_addr);
    limits::count(&s.db, &s.limits.console_sign_ins_per_address, &address, now)
        .await?
        .map_err(limits::Refused::rate_limited)?;
    let username = username.trim().to_ascii_lowercase();
    let Some(row) =
        s.db.operator_by_username(&username)
            .await?
            .filter(|r| r.disabled_at.is_none())
    else {
        let turn = s.bounds.password_hashes.enter().await?;
        // Counted as an account's checks from an address never seen are, keyed by the name's hash: an unknown (or
        // disabled) username locks after as many wrong passwords as a real one, so the lock tells nothing of which
        // names exist.
        let name = format!("name:{}", crypto::token_hash(&username));
        let per_address = format!("{name}:{address}");
        let checks = [
            (&s.limits.password_checks_per_address, per_address.as_str()),
            (&s.limits.password_checks_per_account, name.as_str()),
        ];
        if let Err(refused) = limits::count_all(&s.db, &checks, now).await? {
            return Err(OperatorSignInError::Locked {
                retry_after_secs: refused.retry_after_secs,
            }
            .into());
        }
        verify_password(None, password.to_owned(), turn).await?;
        return Err(OperatorSignInError::CredentialsInvalid.into());
    };
    // The turn comes before the checks are counted: a `server_busy` answer uses up none of them.
    let turn = s.bounds.password_hashes.enter().await?;
    let known =
        s.db.operator_address_known(&row.id, &address, now - KNOWN_ADDRESS_MS)
            .await?;
    let per_address = format!("{}:{address}", row.id);
    let mut checks = vec![(&s.limits.password_checks_per_address, per_address.as_str())];
    if !known {
        checks.push((&s.limits.password_checks_per_account, row.id.as_str()));
    }
    let counted = match limits::count_all(&s.db, &checks, now).await? {
        Ok(counted) => counted,
        Err(refused) => {
            return Err(OperatorSignInError::Locked {
                retry_after_secs: refused.retry_after_secs,
            }
            .into());
        }
    };
    if !verify_password(Some(row.password_hash.clone()), password.to_owned(), turn).await? {
        tracing::info!(operator = %row.id, known, "wrong operator password");
        return Err(OperatorSignInError::CredentialsInvalid.into());
    }
    // The operator's own check was no guess: the account's count of strangers' checks gets it back.
    limits::give_back(&s.db, &counted).await?;
    s.db.operator_signed_in_from(
        &row.id,
        &address,
        &s.limits.password_checks_per_address.key(&per_address),
        now,
    )
    .await?;
    let token = crypto::random_token();
    let csrf_token = crypto::random_token();
    let csrf_hash = crypto::token_hash(&csrf_token);
    // The password checked must still be the account's, and the account enabled, when the session is written, with
    // the account's row locked: a password change, a reset or a disabling committed while the hash ran wins, and this
    // sign-in is refused as the wrong password would be; one committed after it ends this session with the others.
    let mut tx = s.db.begin().await?;
    let still = tx
        .operator_for_update(&row.id)
        .await?
        .is_some_and(|current| {
            current.password_hash == row.password_hash && current.disabled_at.is_none()
        });
    if !still {
        tx.rollback().await?;
        tracing::info!(operator = %row.id, "operator sign-in with a password changed meanwhile");
        return Err(OperatorSignInError::CredentialsInvalid.into());
    }
    tx.insert_operator_session(&row.id, &crypto::token_hash(&token), &csrf_hash, now)
        .await?;
    tx.commit().await?;
    tracing::info!(operator = %row.id, "operator signed in");
    Ok(OperatorSignedIn {
        operator: Operator::of(row, csrf_hash),
        token,
        csrf_token,
    })
}

/// The operator of a live session token: opened less than `SESSION_MS` ago, not signed out, account not disabled.
pub async fn for_token(s: &Services, token: &str) -> Result<Option<Operator>, Error> {
    let now = s.clock.now_ms();
    let session =
        s.db.session_operator(&crypto::token_hash(token), now - SESSION_MS, now)
            .await?;
    Ok(session.map(|row| Operator::of(row.operator, row.csrf_hash)))
}

pub async fn sign_out(s: &Services, token: &str) -> Result<(), Error> {
    Ok(s.db
        .revoke_operator_session(&crypto::token_hash(token), s.clock.now_ms())
        .await?)
}

/// The subject of an operator's count of their current password's checks at a password change (of the per-account
/// limit, apart from strangers' sign-in guesses): an admin's reset of the password clears it.
pub fn own_password_checks(operator_id: &str) -> String {
    format!("own:{operator_id}")
}

/// The signed-in operator chooses their own password: `current` must be the one they signed in with, `new` passes the
/// rules of every operator password (`check_password`) and differs from it. The check of `current` is counted like a
/// sign-in's, per operator and client address and per operator whatever the address (then `operator_locked`), and
/// waits for its turn among the password hashes. On success the password is theirs (`password_change_required` ends), and every other session of theirs ends
/// in the same transaction; this one stays signed in.
pub async fn change_own_password(
    s: &Services,
    op: &Operator,
    session_token: &str,
    current: &str,
    new: &str,
    client_addr: &str,
) -> Result<Operator, Error> {
    let mut errors = FieldErrors::default();
    if current.is_empty() {
        errors.add("currentPassword", FieldProblem::required());
    }
    check_password(new, &mut errors);
    if errors.is_empty() && current == new {
        errors.add("password", FieldProblem::new("field.password_unchanged"));
    }
    errors.into_result()?;
    let row = s.db.operator_by_id(&op.id).await?.ok_or(Error::NotFound)?;
    let now = s.clock.now_ms();
    let address = limits::address_key(client_addr);
    let per_address = format!("{}:{address}", row.id);
    // Per address, and per account whatever the address: a stolen session guessing the password it would keep
    // (rotating addresses) is stopped at the account's count, as sign-in's strangers are. Its own key: strangers'
    // sign-in guesses never stop the operator changing their password.
    let per_account = own_password_checks(&row.id);
    let turn = s.bounds.password_hashes.enter().await?;
    let checks = vec![
        (&s.limits.password_checks_per_address, per_address.as_str()),
        (&s.limits.password_checks_per_account, per_account.as_str()),
    ];
    let counted = match limits::count_all(&s.db, &checks, now).await? {
        Ok(counted) => counted,
        Err(refused) => {
            return Err(OperatorSignInError::Locked {
                retry_after_secs: refused.retry_after_secs,
            }
            .into());
        }
    };
    if !verify_password(Some(row.password_hash.clone()), current.to_owned(), turn).await? {
        return Err(Error::field(
            "currentPassword",
            FieldProblem::new("field.password_wrong"),
        ));
    }
    limits::give_back(&s.db, &counted).await?;
    let password_hash = {
        let _turn = s.bounds.password_hashes.enter_waiting().await?;
        hash_password(new.to_owned()).await?
    };
    let mut tx = s.db.begin().await?;
    // The password checked must still be the account's, and this session live: an admin's reset (or a disabling)
    // while the hashes ran wins, and this change is refused as the wrong password would be.
    if !tx
        .change_own_operator_password(
            &op.id,
            &row.password_hash,
            &password_hash,
            &crypto::token_hash(session_token),
        )
        .await?
    {
        tx.rollback().await?;
        return Err(Error::field(
            "currentPassword",
            FieldProblem::new("field.password_wrong"),
        ));
    }
    let ended = tx
        .revoke_other_operator_sessions(&op.id, &crypto::token_hash(session_token), now)
        .await?;
    let state =
        serde_json::json!({"username": row.username, "passwordChangeRequired": false}).to_string();
    let before = serde_json::json!({"username": row.username, "passwordChangeRequired": row.password_change_required != 0}).to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "operator.password_change",
        entity: "operator",
        entity_id: &op.id,
        before_json: Some(&before),
        after_json: Some(&state),
        at: now,
    })
    .await?;
    tx.commit().await?;
    tracing::info!(operator = %op.id, ended, "operator chose their own password");
    let mut changed = op.clone();
    changed.password_change_required = false;
    Ok(changed)
}

/// An order the operator may see, by its number (trimmed): `not_found` for an unknown number and for an order of a
/// market not theirs alike, so that its existence is not revealed. Every console capability that acts on or shows one
/// order finds it through here.
pub async fn order_in_scope(
    s: &Services,
    op: &Operator,
    order_no: &str,
) -> Result<crate::store::orders::OrderRow, Error> {
    let order =
        s.db.order_by_no(order_no.trim())
            .await?
            .ok_or(Error::NotFound)?;
    op.see(order.market)?;
    Ok(order)
}

/// Development only (the adjustable clock): when there is no operator yet, creates `admin` with every role and a
/// random password, and returns that password to be shown once. `None` when operators exist.
pub async fn create_demo_admin(s: &Services) -> Result<Option<String>, Error> {
    if !s.clock.is_adjustable() {
        return Err(anyhow::anyhow!("the demo operator exists in development only").into());
    }
    if s.db.count_operators().await? > 0 {
        return Ok(None);
    }
    let password: String = crypto::random_token().chars().take(20).collect();
    create(s, "admin", &password, &Role::ALL).await?;
    Ok(Some(password))
}

/// Argon2id with the crate's defaults (19 MiB, 2 passes, 1 lane: OWASP's minimum), off the request threads.
pub(crate) async fn hash_password(password: String) -> Result<String, Error> {
    tokio::task::spawn_blocking(move || {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| anyhow::anyhow!("random salt: {e}"))?;
        let salt = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
    })
    .await
    .map_err(anyhow::Error::from)?
    .map_err(Error::from)
}

/// True when `password` matches the stored PHC string (`None`: the dummy hash, for an unknown username); off the
/// request threads, holding `turn` (of `bounds.password_hashes`) until the hash is done, even if the request is gone.
async fn verify_password(
    stored: Option<String>,
    password: String,
    turn: Permit,
) -> Result<bool, Error> {
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let stored = stored.unwrap_or_else(|| DUMMY_HASH.clone());
        let parsed =
            PasswordHash::new(&stored).map_err(|e| anyhow::anyhow!("a stored hash: {e}"))?;
        Ok::<_, anyhow::Error>(
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok(),
        )
    })
    .await
    .map_err(anyhow::Error::from)?
    .map_err(Error::from)
}

/// A hash of a random password, compared against when the username is unknown.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system's random source works");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a salt");
    Argon2::default()
        .hash_password(crypto::random_token().as_bytes(), &salt)
        .expect("hashing with the default parameters works")
        .to_string()
});

#[cfg(test)]
mod tests {
    use kilat_domain::{Code, Market};

    use super::{Operator, Role};
    use crate::error::{Error, Refusal};

    fn operator_of(markets: &[Market]) -> Operator {
        Operator {
            id: "op".into(),
            username: "op".into(),
            roles: vec![Role::Support],
            markets: markets.to_vec(),
            password_change_required: false,
            csrf_hash: String::new(),
        }
    }

    #[test]
    fn an_operator_of_no_market_is_refused_a_market_filter_never_given_every_market() {
        let nobody = operator_of(&[]);
        assert!(matches!(
            nobody.market_filter(None),
            Err(Error::Refused(Refusal::RoleMissing))
        ));
        assert!(matches!(
            nobody.market_filter(Some(Market::India)),
            Err(Error::Validation(_))
        ));
        let india = operator_of(&[Market::India]);
        assert_eq!(india.market_filter(None).unwrap(), Some(Market::India));
        assert!(india.market_filter(Some(Market::Indonesia)).is_err());
        let both = operator_of(Market::ALL);
        assert_eq!(both.market_filter(None).unwrap(), None);
        assert_eq!(
            both.market_filter(Some(Market::Indonesia)).unwrap(),
            Some(Market::Indonesia)
        );
    }

    #[test]
    fn a_role_list_parses_trimmed_in_any_case_without_duplicates() {
        assert_eq!(
            Role::parse_list("Support, reviewer,support"),
            Ok(vec![Role::Reviewer, Role::Support])
        );
        assert_eq!(Role::parse_list("admin"), Ok(vec![Role::Admin]));
    }

    #[test]
    fn an_unknown_or_empty_role_is_refused_with_the_reason() {
        assert!(
            Role::parse_list("reviewer,boss")
                .unwrap_err()
                .contains("boss")
        );
        assert!(Role::parse_list("").is_err());
        assert!(Role::parse_list("admin,").is_err());
    }

    #[test]
    fn stored_roles_read_back_skipping_unknown_codes() {
        assert_eq!(
            Role::split(&Role::join(&[Role::Support, Role::Admin])),
            vec![Role::Admin, Role::Support]
        );
        assert_eq!(Role::split("reviewer,retired"), vec![Role::Reviewer]);
    }
}
