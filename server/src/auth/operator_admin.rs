//! Admins' management of operators (PRODUCT.md §6, docs/API-CONSOLE.md): the list, creating an operator, changing
//! roles, disabling and enabling, and resetting a password. Disabling and a reset end every session of that operator
//! in the same transaction. An admin cannot disable themself or drop their own admin role, and the last enabled admin
//! can never be disabled or demoted: each such change locks the enabled admins first, so two at once run in turn and
//! the second sees the first. Every change is in the audit trail with before and after.
//!
//! An admin manages only the operators whose markets are all their own ([`manages`]): an admin of India lists,
//! creates and changes India's staff, never an operator who also works in Indonesia (the other lender's staff as
//! well), and cannot change their own markets (docs/API-CONSOLE.md, "Markets of an operator").

use serde::Serialize;

use kilat_domain::Market;

use super::operators::{
    Created, NewAccount, Operator, Role, check_password, create_checked, hash_password,
    join_markets, parse_market_list, split_markets,
};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::limits;
use crate::review::CLAIM_ROLES;
use crate::services::Services;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::operators::OperatorRow;

const ADMIN: &[Role] = &[Role::Admin];

/// An operator as the console lists it (no password hash).
#[derive(Debug, Clone)]
pub struct OperatorRecord {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
    /// The markets the operator sees.
    pub markets: Vec<Market>,
    /// True until the operator replaces the password an admin set with their own.
    pub password_change_required: bool,
    pub enabled: bool,
    /// Sign-ins from addresses the operator never signed in from are refused for now: the per-account limit of
    /// password checks is reached (`crate::infra::limits`).
    pub locked: bool,
    pub created_at: i64,
    /// When the operator last signed in (epoch ms), from any address; `None` when never.
    pub last_sign_in_at: Option<i64>,
}

impl OperatorRecord {
    fn of(row: &OperatorRow, locked: bool) -> Self {
        Self {
            id: row.id.clone(),
            username: row.username.clone(),
            roles: Role::split(&row.roles),
            markets: split_markets(&row.markets),
            password_change_required: row.password_change_required != 0,
            enabled: row.disabled_at.is_none(),
            locked,
            created_at: row.created_at,
            last_sign_in_at: None,
        }
    }
}

/// `record` with its last sign-in, read outside any transaction (as `locked` is, for the same pool reason).
async fn with_last_sign_in(
    s: &Services,
    mut record: OperatorRecord,
) -> Result<OperatorRecord, Error> {
    record.last_sign_in_at = s.db.last_sign_in(&record.id).await?;
    Ok(record)
}

/// What the audit trail keeps of an operator.
#[derive(Serialize)]
struct Audited<'a> {
    username: &'a str,
    roles: String,
    markets: &'a str,
    enabled: bool,
}

fn audited(row: &OperatorRow, roles: &[Role], enabled: bool) -> Result<String, Error> {
    audited_in(row, roles, &row.markets, enabled)
}

fn audited_in(
    row: &OperatorRow,
    roles: &[Role],
    markets: &str,
    enabled: bool,
) -> Result<String, Error> {
    Ok(serde_json::to_string(&Audited {
        username: &row.username,
        roles: Role::join(roles),
        markets,
        enabled,
    })
    .map_err(anyhow::Error::from)?)
}

/// True when the admin `op` may manage an operator of `markets`: every one of them is the admin's. An operator of
/// another market, or of both when the admin has one, works for a lender the admin does not: such an operator is
/// neither listed nor found, as a record of another market is not.
fn manages(op: &Operator, markets: &[Market]) -> bool {
    markets.iter().all(|m| op.may_see(*m))
}

/// Every operator the admin manages ([`manages`]), by username (admin).
pub async fn list(s: &Services, op: &Operator) -> Result<Vec<OperatorRecord>, Error> {
    op.require_any(ADMIN)?;
    let rows: Vec<OperatorRow> =
        s.db.operators()
            .await?
            .into_iter()
            .filter(|row| manages(op, &split_markets(&row.markets)))
            .collect();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let locked = locked(s, &ids).await?;
    let last: std::collections::HashMap<String, i64> =
        s.db.last_sign_ins().await?.into_iter().collect();
    Ok(rows
        .iter()
        .map(|row| OperatorRecord {
            last_sign_in_at: last.get(&row.id).copied(),
            ..OperatorRecord::of(row, locked.contains(&row.id))
        })
        .collect())
}

/// Of `ids`, the operators whose per-account limit of password checks refuses now.
async fn locked(s: &Services, ids: &[&str]) -> Result<Vec<String>, Error> {
    Ok(limits::refusing(
        &s.db,
        &s.limits.password_checks_per_account,
        ids,
        s.clock.now_ms(),
    )
    .await?)
}

/// Markets as a request names them (codes, any case); an unknown one is a field error on `markets`, and so is one
/// that is not the admin's own (`field.market_not_yours`): an admin gives only the markets they work in.
fn markets_of(op: &Operator, codes: &[String], errors: &mut FieldErrors) -> Vec<Market> {
    match parse_market_list(&codes.join(",")) {
        Ok(markets) if !manages(op, &markets) => {
            errors.add("markets", FieldProblem::new("field.market_not_yours"));
            Vec::new()
        }
        Ok(markets) => markets,
        Err(_) if codes.is_empty() => Vec::new(),
        Err(_) => {
            errors.add("markets", FieldProblem::unknown_market());
            Vec::new()
        }
    }
}

/// Creates an operator (admin): username, roles (their codes), markets (`IN`, `ID`: at least one, each the admin's;
/// the admin's own when not given) and an initial password of at least 12 characters, which the operator must
/// replace with their own at their first sign-in; every field at fault is reported at once. A username in use is
/// refused by the unique constraint, as a field error.
pub async fn create(
    s: &Services,
    op: &Operator,
    username: &str,
    password: &str,
    role_codes: &[String],
    market_codes: Option<&[String]>,
) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    let mut errors = FieldErrors::default();
    let roles: Vec<Role> = role_codes.iter().filter_map(|c| Role::parse(c)).collect();
    if roles.len() != role_codes.len() {
        errors.add("roles", FieldProblem::new("field.role"));
    }
    // An unknown market stays its field's problem: `create_checked` adds no second one (none chosen) to it.
    let markets = match market_codes {
        Some(codes) => markets_of(op, codes, &mut errors),
        None => op.markets().collect(),
    };
    // The new password's hash runs within the bound of hashes like a sign-in's, waiting for its turn.
    let turn = s.bounds.password_hashes.enter_waiting().await?;
    let Created {
        id,
        username,
        roles,
        markets,
    } = create_checked(
        &s.db,
        &s.clock,
        NewAccount {
            username,
            password,
            roles: &roles,
            markets: &markets,
        },
        Some(&op.id),
        errors,
    )
    .await?;
    drop(turn);
    Ok(OperatorRecord {
        id,
        username,
        roles,
        markets,
        password_change_required: true,
        enabled: true,
        locked: false,
        created_at: s.clock.now_ms(),
        last_sign_in_at: None,
    })
}

/// The operator changed, locked, after the checks every change of roles or state passes: the caller is still an
/// enabled admin, the target exists and is one the admin manages (else `not_found`, as a record of another market),
/// and the change would leave at least one enabled admin.
async fn target(
    tx: &mut Tx,
    op: &Operator,
    id: &str,
    keeps_admin: bool,
) -> Result<OperatorRow, Error> {
    let admins = tx.lock_enabled_admins().await?;
    if !admins.contains(&op.id) {
        return Err(Refusal::RoleMissing.into());
    }
    let row = tx.operator_for_update(id).await?.ok_or(Error::NotFound)?;
    if !manages(op, &split_markets(&row.markets)) {
        return Err(Error::NotFound);
    }
    let is_enabled_admin = admins.contains(&row.id);
    if is_enabled_admin && !keeps_admin {
        if row.id == op.id {
            return Err(Refusal::OwnAdminAccount.into());
        }
        if admins.len() <= 1 {
            return Err(Refusal::LastAdmin.into());
        }
    }
    Ok(row)
}

/// Replaces an operator's roles (admin). Dropping one's own admin role, or the last enabled admin's, is refused.
pub async fn set_roles(
    s: &Services,
    op: &Operator,
    id: &str,
    roles: &[Role],
) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    if roles.is_empty() {
        return Err(Error::field(
            "roles",
            FieldProblem::new("field.roles_required"),
        ));
    }
    let mut roles = roles.to_vec();
    roles.sort();
    roles.dedup();
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = target(&mut tx, op, id, roles.contains(&Role::Admin)).await?;
    let enabled = row.disabled_at.is_none();
    let before = audited(&row, &Role::split(&row.roles), enabled)?;
    let after = audited(&row, &roles, enabled)?;
    tx.set_operator_roles(id, &Role::join(&roles)).await?;
    audit(&mut tx, op, "operator.roles", id, &before, &after, now).await?;
    if !roles.iter().any(|r| CLAIM_ROLES.contains(r)) {
        release_claims(&mut tx, op, id, now, &[]).await?;
    }
    tx.commit().await?;
    tracing::info!(operator = %op.id, target = %id, roles = %Role::join(&roles), "operator roles changed");
    let mut record = OperatorRecord::of(&row, !locked(s, &[id]).await?.is_empty());
    record.roles = roles;
    with_last_sign_in(s, record).await
}

/// Replaces the markets an operator sees (admin): `IN`, `ID` or both, at least one, each the admin's own. An admin's
/// own markets are not theirs to change (`own_admin_account`), as their own admin role is not. Their live sessions see
/// the new markets at their next request (the session reads the operator each time).
pub async fn set_markets(
    s: &Services,
    op: &Operator,
    id: &str,
    market_codes: &[String],
) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    let mut errors = FieldErrors::default();
    let markets = markets_of(op, market_codes, &mut errors);
    if markets.is_empty() {
        errors.add("markets", FieldProblem::new("field.markets_required"));
    }
    errors.into_result()?;
    let stored = join_markets(&markets);
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = target(&mut tx, op, id, true).await?;
    if row.id == op.id {
        return Err(Refusal::OwnAdminAccount.into());
    }
    let roles = Role::split(&row.roles);
    let enabled = row.disabled_at.is_none();
    let before = audited(&row, &roles, enabled)?;
    let after = audited_in(&row, &roles, &stored, enabled)?;
    tx.set_operator_markets(id, &stored).await?;
    audit(&mut tx, op, "operator.markets", id, &before, &after, now).await?;
    // Claims on the orders of a market taken away: they can no longer be decided by this operator.
    let keep: Vec<&str> = markets
        .iter()
        .map(|m| kilat_domain::Code::code(*m))
        .collect();
    release_claims(&mut tx, op, id, now, &keep).await?;
    tx.commit().await?;
    tracing::info!(operator = %op.id, target = %id, markets = %stored, "operator markets changed");
    let mut record = OperatorRecord::of(&row, !locked(s, &[id]).await?.is_empty());
    record.markets = markets;
    with_last_sign_in(s, record).await
}

/// Releases the review claims of operator `id` that they can no longer decide (on orders of markets other than `keep`;
/// every one when `keep` is empty), each audited `order.release` as the admin's: the orders go back to the queue at
/// once instead of staying blocked for the claim's 30 minutes.
async fn release_claims(
    tx: &mut Tx,
    op: &Operator,
    id: &str,
    now: i64,
    keep: &[&str],
) -> Result<(), Error> {
    let before = serde_json::json!({ "claimedBy": id }).to_string();
    for order_id in tx.release_claims_of(id, now, keep).await? {
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "operator",
            actor_id: Some(&op.id),
            action: "order.release",
            entity: "order",
            entity_id: &order_id,
            before_json: Some(&before),
            after_json: None,
            at: now,
        })
        .await?;
    }
    Ok(())
}

/// Disables an operator and ends all their sessions in one transaction (admin): they cannot sign in until enabled.
/// Disabling oneself or the last enabled admin is refused.
pub async fn disable(s: &Services, op: &Operator, id: &str) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = target(&mut tx, op, id, false).await?;
    if row.id == op.id {
        return Err(Refusal::OwnAdminAccount.into());
    }
    let roles = Role::split(&row.roles);
    // Whether it is locked is read once the transaction is over: a second connection asked for while this one is
    // held could wait on the pool behind the very transactions it waits for.
    let mut record = OperatorRecord::of(&row, false);
    if row.disabled_at.is_none() {
        let before = audited(&row, &roles, true)?;
        let after = audited(&row, &roles, false)?;
        tx.set_operator_disabled(id, Some(now)).await?;
        let revoked = tx.revoke_operator_sessions(id, now).await?;
        audit(&mut tx, op, "operator.disable", id, &before, &after, now).await?;
        release_claims(&mut tx, op, id, now, &[]).await?;
        tx.commit().await?;
        tracing::info!(operator = %op.id, target = %id, revoked, "operator disabled");
    } else {
        tx.rollback().await?;
    }
    record.enabled = false;
    record.locked = !locked(s, &[id]).await?.is_empty();
    with_last_sign_in(s, record).await
}

/// Enables a disabled operator (admin); they sign in again with their password.
pub async fn enable(s: &Services, op: &Operator, id: &str) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = target(&mut tx, op, id, true).await?;
    let roles = Role::split(&row.roles);
    // Read once the transaction is over, as in `disable`.
    let mut record = OperatorRecord::of(&row, false);
    if row.disabled_at.is_some() {
        let before = audited(&row, &roles, false)?;
        let after = audited(&row, &roles, true)?;
        tx.set_operator_disabled(id, None).await?;
        audit(&mut tx, op, "operator.enable", id, &before, &after, now).await?;
        tx.commit().await?;
        tracing::info!(operator = %op.id, target = %id, "operator enabled");
    } else {
        tx.rollback().await?;
    }
    record.enabled = true;
    record.locked = !locked(s, &[id]).await?.is_empty();
    with_last_sign_in(s, record).await
}

/// Sets a new password (admin; at least 12 characters) and ends all the operator's sessions in one transaction; the
/// operator must replace it with their own at their next sign-in. The audit records that it changed, never the
/// password. An admin's own password is not reset here (`own_admin_account`): another admin resets it, or the admin
/// changes it with the current one (`POST /password`, checked and limited), so a stolen admin session cannot take the
/// account over by setting a password it then knows.
pub async fn reset_password(
    s: &Services,
    op: &Operator,
    id: &str,
    password: &str,
) -> Result<OperatorRecord, Error> {
    op.require_any(ADMIN)?;
    if id.trim() == op.id {
        return Err(Refusal::OwnAdminAccount.into());
    }
    let mut errors = FieldErrors::default();
    check_password(password, &mut errors);
    errors.into_result()?;
    let password_hash = {
        let _turn = s.bounds.password_hashes.enter_waiting().await?;
        hash_password(password.to_owned()).await?
    };
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = target(&mut tx, op, id, true).await?;
    if row.id == op.id {
        return Err(Refusal::OwnAdminAccount.into());
    }
    tx.set_operator_password(id, &password_hash, true).await?;
    let revoked = tx.revoke_operator_sessions(id, now).await?;
    let state = audited(&row, &Role::split(&row.roles), row.disabled_at.is_none())?;
    audit(
        &mut tx,
        op,
        "operator.password_reset",
        id,
        &state,
        &state,
        now,
    )
    .await?;
    tx.commit().await?;
    // A new password: its checks start again, at every address.
    s.db.forget_rate_limits(
        &s.limits.password_checks_per_account.key(id),
        &s.limits.password_checks_per_address.key(&format!("{id}:")),
    )
    .await?;
    s.db.forget_rate_limit(
        &s.limits
            .password_checks_per_account
            .key(&super::operators::own_password_checks(id)),
    )
    .await?;
    tracing::info!(operator = %op.id, target = %id, revoked, "operator password reset");
    let mut record = OperatorRecord::of(&row, false);
    record.password_change_required = true;
    with_last_sign_in(s, record).await
}

async fn audit(
    tx: &mut Tx,
    op: &Operator,
    action: &str,
    id: &str,
    before: &str,
    after: &str,
    at: i64,
) -> Result<(), Error> {
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action,
        entity: "operator",
        entity_id: id,
        before_json: Some(before),
        after_json: Some(after),
        at,
    })
    .await?;
    Ok(())
}
