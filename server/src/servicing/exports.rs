//! Month-end exports (finance and admins, issue 18 item 3): one market's payouts, repayments, refunds or ledger
//! entries over a range of the market's own calendar days, as CSV; and the money received and not in the ledger
//! (`not_credited`: held, owed back, kept apart), open now or resolved in the range. Bounded: at most [`MAX_EXPORT_DAYS`] days and
//! [`MAX_EXPORT_ROWS`] rows (a larger range is refused with a field error rather than read into memory). Each export
//! is audited `export.<kind>` with its market and range.

use kilat_domain::{Code, Currency, Market};
use serde::Serialize;
use time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time};

use super::payout_file::bank_amount;
use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem};
use crate::infra::csv::CsvWriter;
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::{date_code, parse_date};
use crate::store::new_id;

/// Who may export.
pub const EXPORT_ROLES: &[Role] = &[Role::Finance, Role::Admin];
/// The longest range, in days (a month and then some).
pub const MAX_EXPORT_DAYS: i64 = 31;
/// The most rows one export holds.
pub const MAX_EXPORT_ROWS: i64 = 50_000;

/// What is exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    Payouts,
    Repayments,
    Refunds,
    Ledger,
    /// Money received and not in the ledger: held, owed back, or kept apart (the month's suspense).
    NotCredited,
}

impl ExportKind {
    pub fn code(self) -> &'static str {
        match self {
            Self::Payouts => "payouts",
            Self::Repayments => "repayments",
            Self::Refunds => "refunds",
            Self::Ledger => "ledger",
            Self::NotCredited => "not_credited",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [
            Self::Payouts,
            Self::Repayments,
            Self::Refunds,
            Self::Ledger,
            Self::NotCredited,
        ]
        .into_iter()
        .find(|k| k.code() == text.trim())
    }
}

/// An export ready to download.
pub struct Export {
    /// `kilat-payouts-IN-2026-11-01-2026-11-30.csv`.
    pub filename: String,
    pub csv: String,
    pub rows: usize,
}

/// The request as the operator gives it.
pub struct ExportQuery<'a> {
    pub kind: Option<&'a str>,
    pub market: Market,
    /// `YYYY-MM-DD`, the market's calendar day, included.
    pub from: Option<&'a str>,
    /// `YYYY-MM-DD`, included.
    pub to: Option<&'a str>,
}

fn checked(query: &ExportQuery<'_>) -> Result<(ExportKind, Date, Date), Error> {
    let mut errors = FieldErrors::default();
    let kind = match query.kind.map(str::trim).filter(|k| !k.is_empty()) {
        None => {
            errors.add("kind", FieldProblem::required());
            None
        }
        Some(k) => ExportKind::parse(k).or_else(|| {
            errors.add("kind", FieldProblem::new("field.export_kind"));
            None
        }),
    };
    let mut date = |field: &'static str, value: Option<&str>| match value
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        None => {
            errors.add(field, FieldProblem::required());
            None
        }
        Some(v) => parse_date(v).ok().or_else(|| {
            errors.add(field, FieldProblem::new("field.date_format"));
            None
        }),
    };
    let from = date("from", query.from);
    let to = date("to", query.to);
    if let (Some(from), Some(to)) = (from, to)
        && (to < from || (to - from).whole_days() >= MAX_EXPORT_DAYS)
    {
        errors.add(
            "to",
            FieldProblem::new("field.export_range").with("days", MAX_EXPORT_DAYS),
        );
    }
    errors.into_result()?;
    match (kind, from, to) {
        (Some(kind), Some(from), Some(to)) => Ok((kind, from, to)),
        _ => Err(anyhow::anyhow!("export query checked without its fields").into()),
    }
}

/// Epoch milliseconds at the start of `day` in the market's time (IST, WIB).
fn day_start_ms(market: Market, day: Date) -> i64 {
    let offset_secs = match market {
        Market::India => 5 * 3600 + 30 * 60,
        Market::Indonesia => 7 * 3600,
    };
    let utc = PrimitiveDateTime::new(day, Time::MIDNIGHT).assume_utc();
    (utc.unix_timestamp() - offset_secs) * 1000
}

/// An instant in the market's time, as a spreadsheet reads it: `2026-11-27 10:15:00`.
fn local_time(market: Market, ms: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let local = market.local_time(at);
    format!(
        "{} {:02}:{:02}:{:02}",
        date_code(local.date()),
        local.hour(),
        local.minute(),
        local.second()
    )
}

fn too_large() -> Error {
    Error::Validation(FieldErrors::one(
        "to",
        FieldProblem::new("field.export_too_large").with("rows", MAX_EXPORT_ROWS),
    ))
}

fn amount(currency: Currency, minor: i64) -> String {
    bank_amount(currency, minor)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExportAudit<'a> {
    market: &'a str,
    from: String,
    to: String,
    rows: usize,
}

/// One market's month-end export as CSV (finance, admins): amounts in the currency's units (exact, from minor units)
/// beside the currency code, dates and times in the market's calendar. Audited `export.<kind>`.
pub async fn month_end(
    s: &Services,
    op: &Operator,
    query: &ExportQuery<'_>,
) -> Result<Export, Error> {
    op.require_any(EXPORT_ROLES)?;
    let market = op.require_market(query.market)?;
    let (kind, from, to) = checked(query)?;
    let (from_code, to_code) = (date_code(from), date_code(to));
    // One more row than allowed tells a range too large apart from one exactly full.
    let limit = MAX_EXPORT_ROWS + 1;
    let mut csv = CsvWriter::new();
    let rows = match kind {
        ExportKind::Payouts => {
            let rows =
                s.db.export_payouts(market, &from_code, &to_code, limit)
                    .await?;
            csv.header(&[
                "Payout Date",
                "Order No",
                "Product",
                "Currency",
                "Principal",
                "Amount Sent",
                "Provider",
                "Bank Reference",
                "Recorded By",
                "Approved By",
                "Recorded At",
            ]);
            for r in &rows {
                csv.raw(&r.payout_date)
                    .text(&r.order_no)
                    .text(&r.product_code)
                    .raw(r.currency.code())
                    .raw(&amount(r.currency, r.principal))
                    .raw(&amount(r.currency, r.amount))
                    .text(&r.provider)
                    .text(&r.bank_reference)
                    .opt(r.recorded_by.as_deref())
                    .opt(r.approved_by.as_deref())
                    .raw(&local_time(market, r.created_at))
                    .end_row();
            }
            rows.len()
        }
        ExportKind::Repayments => {
            let rows =
                s.db.export_repayments(market, &from_code, &to_code, limit)
                    .await?;
            csv.header(&[
                "Date",
                "Order No",
                "Entry",
                "Kind",
                "Payment Reference",
                "Method",
                "Choice",
                "UTR",
                "Currency",
                "Cash Received",
                "Excess",
                "Fees Refunded",
            ]);
            for r in &rows {
                csv.raw(&r.on_date)
                    .text(&r.order_no)
                    .raw(&r.seq.to_string())
                    .text(&r.kind)
                    .text(&r.reference)
                    .text(&r.method)
                    .text(&r.choice)
                    .opt(r.utr.as_deref())
                    .raw(r.currency.code())
                    .raw(&amount(r.currency, r.cash))
                    .raw(&amount(r.currency, r.excess))
                    .raw(&amount(r.currency, r.refunded))
                    .end_row();
            }
            rows.len()
        }
        ExportKind::Refunds => {
            let rows =
                s.db.export_refunds(
                    market,
                    day_start_ms(market, from),
                    day_start_ms(market, to + Duration::days(1)),
                    limit,
                )
                .await?;
            csv.header(&[
                "Refunded At",
                "Order No",
                "Payment Reference",
                "Currency",
                "Amount Received",
                "Amount Refunded",
                "Refund Bank Reference",
                "Refunded By",
            ]);
            for r in &rows {
                csv.raw(&local_time(market, r.refunded_at))
                    .text(&r.order_no)
                    .text(&r.reference)
                    .raw(r.currency.code())
                    .raw(
                        &r.received_amount
                            .map(|a| amount(r.currency, a))
                            .unwrap_or_default(),
                    )
                    .raw(&amount(r.currency, r.refund_amount))
                    .text(&r.refund_reference)
                    .opt(r.refunded_by.as_deref())
                    .end_row();
            }
            rows.len()
        }
        ExportKind::Ledger => {
            let rows =
                s.db.export_ledger(market, &from_code, &to_code, limit)
                    .await?;
            csv.header(&[
                "Date",
                "Order No",
                "Entry",
                "Kind",
                "Currency",
                "Cash",
                "Excess",
                "Fees Refunded",
                "Due Principal",
                "Due Interest",
                "Due Fees",
                "Due Late Charges",
                "Paid Principal",
                "Paid Interest",
                "Paid Fees",
                "Paid Late Charges",
                "Reverses Entry",
                "Payment Reference",
            ]);
            for r in &rows {
                let c = r.currency;
                csv.raw(&r.on_date)
                    .text(&r.order_no)
                    .raw(&r.seq.to_string())
                    .text(&r.kind)
                    .raw(c.code())
                    .raw(&amount(c, r.cash))
                    .raw(&amount(c, r.excess))
                    .raw(&amount(c, r.refunded))
                    .raw(&amount(c, r.due_principal))
                    .raw(&amount(c, r.due_interest))
                    .raw(&amount(c, r.due_fees))
                    .raw(&amount(c, r.due_late_charges))
                    .raw(&amount(c, r.paid_principal))
                    .raw(&amount(c, r.paid_interest))
                    .raw(&amount(c, r.paid_fees))
                    .raw(&amount(c, r.paid_late_charges))
                    .raw(&r.reverses.map(|n| n.to_string()).unwrap_or_default())
                    .opt(r.payment_reference.as_deref())
                    .end_row();
            }
            rows.len()
        }
        ExportKind::NotCredited => {
            let rows =
                s.db.export_not_credited(
                    market,
                    day_start_ms(market, from),
                    day_start_ms(market, to + Duration::days(1)),
                    limit,
                )
                .await?;
            csv.header(&[
                "Since (Last Change)",
                "Source",
                "State",
                "Order No",
                "Reference",
                "Provider",
                "Currency",
                "Amount",
                "Resolved At",
                "Resolution",
            ]);
            for r in &rows {
                let currency = r.currency.as_deref().and_then(Currency::from_code);
                let shown = match (currency, r.amount) {
                    (Some(c), Some(a)) => amount(c, a),
                    (None, Some(a)) => a.to_string(),
                    (_, None) => String::new(),
                };
                csv.raw(&local_time(market, r.since))
                    .text(&r.source)
                    .text(&r.state)
                    .opt(r.order_no.as_deref())
                    .text(&r.reference)
                    .text(&r.provider)
                    .opt(r.currency.as_deref())
                    .raw(&shown)
                    .raw(
                        &r.resolved_at
                            .map(|at| local_time(market, at))
                            .unwrap_or_default(),
                    )
                    .opt(r.resolution.as_deref())
                    .end_row();
            }
            rows.len()
        }
    };
    if i64::try_from(rows).unwrap_or(i64::MAX) > MAX_EXPORT_ROWS {
        return Err(too_large());
    }
    let after = serde_json::to_string(&ExportAudit {
        market: market.code(),
        from: from_code.clone(),
        to: to_code.clone(),
        rows,
    })
    .map_err(anyhow::Error::from)?;
    let action = match kind {
        ExportKind::Payouts => "export.payouts",
        ExportKind::Repayments => "export.repayments",
        ExportKind::Refunds => "export.refunds",
        ExportKind::Ledger => "export.ledger",
        ExportKind::NotCredited => "export.not_credited",
    };
    let export_id = new_id();
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action,
        entity: "export",
        entity_id: &export_id,
        before_json: None,
        after_json: Some(&after),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(Export {
        filename: format!(
            "kilat-{}-{}-{from_code}-{to_code}.csv",
            kind.code(),
            market.code()
        ),
        csv: csv.finish(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn a_market_s_day_starts_at_its_own_midnight() {
        // 2026-11-27 00:00 IST is 2026-11-26 18:30 UTC; WIB is 17:00 UTC.
        assert_eq!(
            day_start_ms(Market::India, date!(2026 - 11 - 27)),
            1_795_717_800_000
        );
        assert_eq!(
            day_start_ms(Market::Indonesia, date!(2026 - 11 - 27)),
            1_795_712_400_000
        );
        assert_eq!(
            local_time(Market::India, 1_795_717_800_000),
            "2026-11-27 00:00:00"
        );
    }

    #[test]
    fn ranges_are_checked_field_by_field() {
        let q = |kind, from, to| ExportQuery {
            kind,
            market: Market::India,
            from,
            to,
        };
        assert!(checked(&q(Some("ledger"), Some("2026-11-01"), Some("2026-12-01"))).is_ok());
        let Err(Error::Validation(e)) =
            checked(&q(Some("ledger"), Some("2026-11-01"), Some("2026-12-02")))
        else {
            panic!("32 days pass")
        };
        assert_eq!(e.get("to").unwrap().key(), "field.export_range");
        let Err(Error::Validation(e)) = checked(&q(Some("x"), Some("2026-13-01"), None)) else {
            panic!("bad fields pass")
        };
        assert_eq!(e.get("kind").unwrap().key(), "field.export_kind");
        assert_eq!(e.get("from").unwrap().key(), "field.date_format");
        assert_eq!(e.get("to").unwrap().key(), "field.required");
    }
}
