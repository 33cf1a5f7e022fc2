//! A live session with what its borrower's standing needs (certification progress, the job step's blob, the open
//! order), read in one statement for the home screen.

use kilat_domain::{Market, OrderState};

use super::Db;
use super::certification::StepDoneWithJob;
use super::orders::OpenOrderRow;
use super::sign_in::{BorrowerRow, SessionRow, live_session};
use crate::certification::Step;

/// A live session and its borrower's standing, as stored (see [`Db::session_standing`]).
#[derive(Debug, Clone)]
pub struct SessionStanding {
    pub session: SessionRow,
    /// The steps done, the job step with its blob.
    pub steps: Vec<StepDoneWithJob>,
    pub open_order: Option<OpenOrderRow>,
}

/// One row of [`Db::session_standing`]: `part` `s` is the session with its borrower and open order (`text1`…`text5`:
/// the borrower's id, market, sealed phone, the open order's number and status; `num1`…`num5`: the borrower's
/// creation, the session's opening and last use, the order's amount and creation); each `c` row is one step done
/// (`text1`: the step, `text2`: the job step's sealed blob; `num1`: its completion). One shape for both, so that the
/// borrower's columns (the sealed phone above all) are read once, not once per step.
#[derive(sqlx::FromRow)]
struct Row {
    part: String,
    text1: Option<String>,
    text2: Option<String>,
    text3: Option<String>,
    text4: Option<String>,
    text5: Option<String>,
    num1: Option<i64>,
    num2: Option<i64>,
    num3: Option<i64>,
    num4: Option<i64>,
    num5: Option<i64>,
}

fn decode(e: kilat_domain::UnknownCode) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}

impl Db {
    /// A live session (the conditions of [`Db::session_borrower`]) with its borrower, the steps they have done (only
    /// the job step's blob) and their open order, in one statement: the session row LEFT JOINed to the open order
    /// (at most one), then, UNION ALL, a row per step done under the same session conditions. No session row means no
    /// live session. The session's last use is not moved here.
    pub async fn session_standing(
        &self,
        token_hash: &str,
        idle_since: i64,
        created_since: i64,
    ) -> sqlx::Result<Option<SessionStanding>> {
        let rows: Vec<Row> = sqlx::query_as(concat!(
            "SELECT 's' AS part, b.id AS text1, b.market AS text2, b.phone_enc AS text3, o.order_no AS text4,
               o.status AS text5, b.created_at AS num1, s.created_at AS num2, s.last_seen_at AS num3,
               o.amount AS num4, o.created_at AS num5
             FROM borrower_sessions s JOIN borrowers b ON b.id = s.borrower_id
             LEFT JOIN orders o ON o.borrower_id = s.borrower_id AND o.closed_at IS NULL
             WHERE ",
            live_session!(),
            " UNION ALL
             SELECT 'c', c.step, CASE WHEN c.step = 'job' THEN c.data_enc END, NULL, NULL, NULL, c.completed_at, NULL,
               NULL, NULL, NULL
             FROM borrower_sessions s JOIN certification_steps c ON c.borrower_id = s.borrower_id
             WHERE ",
            live_session!()
        ))
        .bind(token_hash)
        .bind(idle_since)
        .bind(created_since)
        .fetch_all(&self.read_pool())
        .await?;
        let mut session = None;
        let mut open_order = None;
        let mut steps = Vec::with_capacity(rows.len());
        for row in rows {
            if row.part == "s" {
                let market = row.text2.unwrap_or_default();
                session = Some(SessionRow {
                    borrower: BorrowerRow {
                        id: row.text1.unwrap_or_default(),
                        market: Market::try_from(market).map_err(decode)?,
                        phone_enc: row.text3.unwrap_or_default(),
                        created_at: row.num1.unwrap_or_default(),
                    },
                    created_at: row.num2.unwrap_or_default(),
                    last_seen_at: row.num3.unwrap_or_default(),
                });
                if let Some(order_no) = row.text4 {
                    open_order = Some(OpenOrderRow {
                        order_no,
                        status: OrderState::try_from(row.text5.unwrap_or_default())
                            .map_err(decode)?,
                        amount: row.num4.unwrap_or_default(),
                        created_at: row.num5.unwrap_or_default(),
                    });
                }
            } else {
                steps.push(StepDoneWithJob {
                    step: Step::try_from(row.text1.unwrap_or_default()).map_err(decode)?,
                    completed_at: row.num1.unwrap_or_default(),
                    data_enc: row.text2,
                });
            }
        }
        // The step rows come with the session row or not at all (the same session conditions): no session row, no
        // live session.
        let Some(session) = session else {
            return Ok(None);
        };
        Ok(Some(SessionStanding {
            session,
            steps,
            open_order,
        }))
    }
}
