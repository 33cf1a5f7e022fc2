//! Development only: open loans written straight into the database for the overdue job's benchmark
//! (`scripts/bench-overdue.sh`): each one a real plan from the catalog's product, paid out on a date, with the
//! ledger the payout opens, so the job replays and charges them exactly as it would a loan paid out by finance. Each
//! loan's borrower has a phone of its own, sealed to it (the collections queue and the reminders read it).

use kilat_domain::{Code, Money, Plan, Product, quote_with_caps};
use time::Date;

use crate::services::Services;
use crate::store::jobs::SeedLoan;
use crate::store::loans::{NewEntry, date_code};
use crate::store::new_id;

/// Loans copied per transaction.
const BATCH: usize = 50_000;

/// Writes `loans` disbursed loans of `product` (one the catalog offers) for `amount` over `term`, paid out on `payout`;
/// returns the number of installments written.
pub async fn open_loans(
    s: &Services,
    product: &Product,
    amount: i64,
    term: &str,
    payout: Date,
    loans: usize,
) -> anyhow::Result<usize> {
    let market = product.market;
    let quote = quote_with_caps(product, Money::from_minor(amount), term, payout, &s.caps)
        .map_err(|e| anyhow::anyhow!("quoting the seed loan: {e}"))?;
    let plan = Plan::at_payout(&quote, payout).map_err(|e| anyhow::anyhow!("{e}"))?;
    let plan_json = serde_json::to_string(&plan)?;
    let opening = plan.opening_entries();
    let now = s.clock.now_ms();
    let tag = &new_id()[..8];
    if loans == 0 {
        return Ok(0);
    }
    // The first loan written row by row (as finance's payout writes one), every other one a copy of it made by the
    // database: a few set-based statements per batch, whatever the number of loans.
    let template = SeedLoan {
        order_id: new_id(),
        order_no: format!("SEED{tag}T"),
        borrower_id: new_id(),
        market: market.code(),
        product_code: quote.product_code.clone(),
        product_name: quote.product_name.clone(),
        term_code: quote.term.code.clone(),
        currency: quote.currency.code(),
        amount,
        net_disbursed: quote.net_disbursed.minor(),
        total_repayable: quote.total_repayable.minor(),
        payout_date: date_code(payout),
        plan_json,
    };
    let entries: Vec<NewEntry<'_>> = opening
        .iter()
        .zip(0u64..)
        .map(|(entry, seq)| NewEntry {
            order_id: &template.order_id,
            seq,
            entry,
            payment_id: None,
        })
        .collect();
    // The borrowers first, every one with its own sealed phone: the template's, then each copy's (the template's id
    // with the copy's suffix, as `clone_seed_loan` names them), numbered after the borrowers already there.
    let phones = usize::try_from(s.db.borrower_count().await?)?;
    let mut written = 0;
    while written < loans {
        let end = (written + BATCH).min(loans);
        let secrets = s.secrets.clone();
        let template_borrower = template.borrower_id.clone();
        let borrowers = tokio::task::spawn_blocking(move || {
            super::dataset::on_every_core(written..end, &|n| {
                let id = if n == 0 {
                    template_borrower.clone()
                } else {
                    format!("{template_borrower}-{n:08}")
                };
                super::dataset::phone_borrower(&secrets, id, market, phones + n, now)
            })
        })
        .await??;
        let mut tx = s.db.begin().await?;
        tx.insert_seed_borrowers(&borrowers).await?;
        tx.commit().await?;
        written = end;
    }
    let mut tx = s.db.begin().await?;
    tx.insert_seed_loans(std::slice::from_ref(&template), now)
        .await?;
    crate::ledger::post_batch_in(&mut tx, &entries, now).await?;
    let balances = kilat_domain::replay(&plan, &opening).map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::ledger::note_arrears_in(
        &mut tx,
        &[crate::ledger::position(
            &template.order_id,
            market.code(),
            &balances,
        )?],
        now,
    )
    .await?;
    tx.commit().await?;
    let prefix = format!("SEED{tag}");
    let mut written = 1;
    while written < loans {
        let n = BATCH.min(loans - written);
        let mut tx = s.db.begin().await?;
        tx.clone_seed_loan(
            &template.order_id,
            &prefix,
            i64::try_from(written)?,
            i64::try_from(n)?,
        )
        .await?;
        tx.commit().await?;
        written += n;
    }
    Ok(loans * plan.quote.installments.len())
}
