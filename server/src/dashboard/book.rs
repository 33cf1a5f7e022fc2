//! The dashboard's book kept as the loans change (migration 0052, `store/book.rs`): counted once from the open loans'
//! positions at the first start after the migration, then moved by every change and folded by the worker.

use std::collections::HashSet;

use anyhow::Context;
use kilat_domain::Plan;

use crate::store::{Db, StartupMarker};

/// Open loans without a whole position, positioned a page at a time.
const LOANS_PER_PAGE: i64 = 500;

/// At the first start after migration 0052 (its `book_count_pending` row): writes the position of every open loan
/// that has none or lacks its amounts (from before migrations 0044 and 0046, its ledger replayed; the book reads
/// positions alone), then counts the book from the positions and takes the marker, in one transaction. Two servers
/// starting at once may both write those positions, the same ones; only one counts. Returns the kept rows counted,
/// `None` when it was done before.
pub async fn count_once(db: &Db, now: i64) -> anyhow::Result<Option<u64>> {
    if !db.marker_pending(StartupMarker::BookCount).await? {
        return Ok(None);
    }
    let mut after = String::new();
    loop {
        let page = db.unpositioned_open_loans(&after, LOANS_PER_PAGE).await?;
        let Some(last) = page.last() else { break };
        after.clone_from(&last.order_id);
        position_page(db, &page, now).await?;
    }
    let mut tx = db.begin().await?;
    if !tx.take_marker(StartupMarker::BookCount).await? {
        tx.rollback().await?;
        return Ok(None);
    }
    let rows = tx.count_book().await?;
    tx.commit().await?;
    Ok(Some(rows))
}

/// Replays the ledgers of a page of open loans without a whole position and writes their positions, under their
/// orders' locks (a loan that ended since the page was read is left alone).
async fn position_page(
    db: &Db,
    page: &[crate::store::book::UnpositionedLoan],
    now: i64,
) -> anyhow::Result<()> {
    let ids: Vec<&str> = page.iter().map(|l| l.order_id.as_str()).collect();
    let mut tx = db.begin().await?;
    let open: HashSet<String> = tx
        .orders_for_update(&ids)
        .await?
        .into_iter()
        .filter(|row| row.status.is_active_loan())
        .map(|row| row.id)
        .collect();
    let open_ids: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| open.contains(*id))
        .collect();
    let mut ledgers = tx.ledgers_in_tx(&open_ids).await?;
    let mut rows = Vec::with_capacity(open_ids.len());
    for loan in page.iter().filter(|l| open.contains(&l.order_id)) {
        let plan: Plan = serde_json::from_str(&loan.plan_json)
            .with_context(|| format!("the plan of order {}", loan.order_no))?;
        let entries =
            crate::servicing::entries_of(ledgers.remove(&loan.order_id).unwrap_or_default())
                .with_context(|| format!("the ledger of order {}", loan.order_no))?;
        let balances = crate::servicing::balances_of(&plan, &entries)
            .with_context(|| format!("replaying the ledger of order {}", loan.order_no))?;
        rows.push(crate::ledger::position(
            &loan.order_id,
            &loan.market,
            &balances,
        )?);
    }
    crate::ledger::note_arrears_in(&mut tx, &rows, now).await?;
    tx.commit().await?;
    Ok(())
}
