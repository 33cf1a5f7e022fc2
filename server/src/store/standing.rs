//! A live session with what its borrower's standing needs (certification progress, the job step's income verdict, the
//! open order) and the masked phone, read in one statement and one row for the home screen: no blob to decrypt.

use std::collections::HashMap;

use kilat_domain::{Market, OrderState};
use sqlx::AnyPool;

use super::Db;
use super::batch::{SessionKey, live_sessions_in, session_bounds};
use super::certification::StepDoneWithIncome;
use super::orders::OpenOrderRow;
use super::sign_in::{BorrowerRow, SessionRow};
use crate::certification::Step;

/// A live session and its borrower's standing, as stored (see [`Db::session_standing`]).
#[derive(Debug, Clone)]
pub struct SessionStanding {
    pub session: SessionRow,
    /// The phone as lists show it, stored beside the sealed one (empty only when a backfill has not written it).
    pub phone_masked: String,
    /// The steps done, the job step with its income verdict.
    pub steps: Vec<StepDoneWithIncome>,
    pub open_order: Option<OpenOrderRow>,
}

/// The one row of [`Db::session_standing`]: the session, its borrower, the open order (NULLs when none) and the
/// completion time of each step (NULL when not done), with the job step's income verdict.
#[derive(kilat_row::FromRow)]
struct Row {
    token_hash: String,
    borrower_id: String,
    market: String,
    phone_enc: String,
    phone_masked: String,
    borrower_created_at: i64,
    session_created_at: i64,
    last_seen_at: i64,
    order_no: Option<String>,
    order_status: Option<String>,
    order_amount: Option<i64>,
    order_created_at: Option<i64>,
    base_at: Option<i64>,
    personal_at: Option<i64>,
    job_at: Option<i64>,
    extended_at: Option<i64>,
    bank_at: Option<i64>,
    job_income_minimum: Option<i64>,
    job_income_below: Option<i64>,
}

fn decode(e: kilat_domain::UnknownCode) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}

impl Db {
    /// A live session (the conditions of [`Db::session_borrower`]) with its borrower, the steps they have done (the
    /// job step with its income verdict) and their open order, in one statement and one row: the session JOINed to its
    /// borrower, LEFT JOINed to the open order (at most one: `orders_one_open`) and to the borrower's steps (see
    /// [`steps_read`]). No row means no live session. The session's last use is not moved here. On an HTTP worker
    /// with a pool of its own, batched with the other requests' ([`super::batch`]).
    pub async fn session_standing(
        &self,
        token_hash: &str,
        idle_since: i64,
        created_since: i64,
    ) -> sqlx::Result<Option<SessionStanding>> {
        let key = SessionKey {
            token_hash: token_hash.to_owned(),
            idle_since,
            created_since,
        };
        if let Some(hot) = self.hot_reads() {
            return hot.standing.get(key).await;
        }
        Ok(session_standings_in(&self.read_pool(), self.sqlite, &[key])
            .await?
            .pop()
            .flatten())
    }
}

/// [`Db::session_standing`] for each key, in the keys' order, in one statement.
pub(super) async fn session_standings_in(
    pool: &AnyPool,
    sqlite: bool,
    keys: &[SessionKey],
) -> sqlx::Result<Vec<Option<SessionStanding>>> {
    let (idle_since, created_since, tokens) = session_bounds(keys);
    let (columns, joins) = steps_read(sqlite);
    let sql = format!(
        "SELECT s.token_hash, b.id AS borrower_id, b.market, b.phone_enc, b.phone_masked,
           b.created_at AS borrower_created_at,
           s.created_at AS session_created_at, s.last_seen_at, o.order_no, o.status AS order_status,
           o.amount AS order_amount, o.created_at AS order_created_at, {columns}
         FROM borrower_sessions s JOIN borrowers b ON b.id = s.borrower_id
         LEFT JOIN orders o ON o.borrower_id = s.borrower_id AND o.closed_at IS NULL
         {joins}
         WHERE {live}",
        live = live_sessions_in(&tokens),
    );
    let mut query = sqlx::query_as::<_, Row>(&sql)
        .bind(idle_since)
        .bind(created_since);
    for key in keys {
        query = query.bind(key.token_hash.as_str());
    }
    let rows = query.fetch_all(pool).await?;
    let mut found: HashMap<String, SessionStanding> = HashMap::with_capacity(rows.len());
    for row in rows {
        found.insert(row.token_hash.clone(), row.into_standing()?);
    }
    Ok(keys
        .iter()
        .map(|key| {
            found
                .get(&key.token_hash)
                .filter(|st| key.admits(st.session.created_at, st.session.last_seen_at))
                .cloned()
        })
        .collect())
}

/// The steps' columns of [`session_standings_in`] (`base_at` … `bank_at`, the job step's income verdict), and the
/// joins after the open order's that give them.
///
/// PostgreSQL reads the borrower's steps in one range of `certification_steps_progress` (migration 0053), which holds
/// every column read here, so no table row is visited, and folds them into one row (`LATERAL`, `FILTER`). SQLite, which
/// has no `LATERAL`, looks each step up in that index; `INDEXED BY`, because without statistics it picks the primary
/// key and then reads the row. On PostgreSQL a batch's statement with five joins of the steps took about 30 % longer
/// than this one (docs/PERFORMANCE.md, "Home's statement on PostgreSQL").
fn steps_read(sqlite: bool) -> (&'static str, &'static str) {
    if sqlite {
        (
            "cb.completed_at AS base_at, cp.completed_at AS personal_at, cj.completed_at AS job_at,
               ce.completed_at AS extended_at, ck.completed_at AS bank_at, cj.income_minimum AS job_income_minimum,
               cj.income_below AS job_income_below",
            "LEFT JOIN certification_steps cb INDEXED BY certification_steps_progress
               ON cb.borrower_id = s.borrower_id AND cb.step = 'base'
             LEFT JOIN certification_steps cp INDEXED BY certification_steps_progress
               ON cp.borrower_id = s.borrower_id AND cp.step = 'personal'
             LEFT JOIN certification_steps cj INDEXED BY certification_steps_progress
               ON cj.borrower_id = s.borrower_id AND cj.step = 'job'
             LEFT JOIN certification_steps ce INDEXED BY certification_steps_progress
               ON ce.borrower_id = s.borrower_id AND ce.step = 'extended'
             LEFT JOIN certification_steps ck INDEXED BY certification_steps_progress
               ON ck.borrower_id = s.borrower_id AND ck.step = 'bank'",
        )
    } else {
        (
            "c.base_at, c.personal_at, c.job_at, c.extended_at, c.bank_at, c.job_income_minimum, c.job_income_below",
            "LEFT JOIN LATERAL (
               SELECT max(completed_at) FILTER (WHERE step = 'base') AS base_at,
                 max(completed_at) FILTER (WHERE step = 'personal') AS personal_at,
                 max(completed_at) FILTER (WHERE step = 'job') AS job_at,
                 max(completed_at) FILTER (WHERE step = 'extended') AS extended_at,
                 max(completed_at) FILTER (WHERE step = 'bank') AS bank_at,
                 max(income_minimum) FILTER (WHERE step = 'job') AS job_income_minimum,
                 max(income_below) FILTER (WHERE step = 'job') AS job_income_below
               FROM certification_steps WHERE borrower_id = s.borrower_id) c ON true",
        )
    }
}

impl Row {
    fn into_standing(self) -> sqlx::Result<SessionStanding> {
        let row = self;
        let open_order = match row.order_no {
            Some(order_no) => Some(OpenOrderRow {
                order_no,
                status: OrderState::try_from(row.order_status.unwrap_or_default())
                    .map_err(decode)?,
                amount: row.order_amount.unwrap_or_default(),
                created_at: row.order_created_at.unwrap_or_default(),
            }),
            None => None,
        };
        // An exhaustive match, so that a new step cannot be left out of the statement above unnoticed.
        let completed_at = |step: Step| match step {
            Step::Base => row.base_at,
            Step::Personal => row.personal_at,
            Step::Job => row.job_at,
            Step::Extended => row.extended_at,
            Step::Bank => row.bank_at,
        };
        let steps: Vec<StepDoneWithIncome> = Step::ALL
            .iter()
            .filter_map(|&step| {
                let job = step == Step::Job;
                completed_at(step).map(|completed_at| StepDoneWithIncome {
                    step,
                    completed_at,
                    income_minimum: row.job_income_minimum.filter(|_| job),
                    income_below: row.job_income_below.filter(|_| job),
                })
            })
            .collect();
        Ok(SessionStanding {
            session: SessionRow {
                borrower: BorrowerRow {
                    id: row.borrower_id,
                    market: Market::try_from(row.market).map_err(decode)?,
                    phone_enc: row.phone_enc,
                    created_at: row.borrower_created_at,
                },
                created_at: row.session_created_at,
                last_seen_at: row.last_seen_at,
            },
            phone_masked: row.phone_masked,
            steps,
            open_order,
        })
    }
}
