//! The bank's bulk payment file and its result file (finance, issue 18): the approved, not-yet-paid loans of one
//! market written in a common bank upload layout, and the bank's answer read back line by line, each line matched to
//! its order and paid exactly as one payout recorded by hand ([`super::payout::pay_or_record`]: one step, or recorded
//! for a second operator above the threshold).
//!
//! The layout (docs/API-CONSOLE.md, "Bank bulk payment file"): beneficiary name, account number, IFSC (India) or bank
//! code (Indonesia), amount in the currency's units (rupees with two decimals; whole rupiah), the payment reference
//! (the order number, with `-2`, `-3`… from its second file on: [`send_reference`]; the result file quotes it back),
//! and the bank's name.

use std::collections::HashSet;

use kilat_domain::{Code, Currency, Market, OrderState};
use serde::Serialize;

use super::payout::{PAYOUT_ROLES, PayoutOutcome, Sent, beneficiary_of, pay_or_record};
use crate::auth::operators::Operator;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::csv::{CsvError, CsvWriter, parse};
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::new_id;

/// The most orders one bank file holds (banks' bulk uploads take a few thousand lines at most).
pub const BANK_FILE_LIMIT: i64 = 1000;
/// The most lines a result file may have.
pub const RESULT_LINES_LIMIT: usize = 2000;

/// A bank file ready to download.
pub struct BankFile {
    /// `kilat-payouts-IN-2026-11-27.csv`.
    pub filename: String,
    pub csv: String,
    /// The order numbers it holds, in its order.
    pub orders: Vec<String>,
    /// Minor units: the sum of its amounts.
    pub total: i64,
}

/// The payment reference of an order's `attempt`-th send in a bank file: the order number for the first, then the
/// order number with `-2`, `-3`… — so a line of the bank's result names the file it answers, and a failed line of an
/// earlier file cannot take the order out of the newer file its money may be on its way in.
pub fn send_reference(order_no: &str, attempt: i64) -> String {
    if attempt <= 1 {
        order_no.to_owned()
    } else {
        format!("{order_no}-{attempt}")
    }
}

/// The order number and send number a result line's reference names ([`send_reference`] read back): an order
/// number (`KL-YYMMDD-XXXXXX`, two dashes) followed by `-N` is its `N`-th send; anything else is read as it is, a
/// first send.
pub fn read_send_reference(reference: &str) -> (&str, i64) {
    if let Some((order_no, n)) = reference.rsplit_once('-')
        && order_no.matches('-').count() == 2
        && !n.is_empty()
        && n.len() <= 4
        && n.bytes().all(|b| b.is_ascii_digit())
        && let Ok(attempt) = n.parse::<i64>()
        && attempt >= 2
    {
        return (order_no, attempt);
    }
    (reference, 1)
}

/// An amount in the currency's units as banks write it: rupees with two decimals (`19410.00`); whole rupiah
/// (`3000000`), or with the sen when there are any (`3000000.50`). Exact: integer arithmetic on minor units.
pub fn bank_amount(currency: Currency, minor: i64) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let (units, cents) = (minor.abs() / 100, minor.abs() % 100);
    match currency {
        Currency::Idr if cents == 0 => format!("{sign}{units}"),
        _ => format!("{sign}{units}.{cents:02}"),
    }
}

/// Reads an amount a bank wrote in the currency's units (`19410`, `19410.5`, `19410.00`; no sign, no separators) as
/// minor units.
pub fn parse_bank_amount(text: &str) -> Option<i64> {
    let text = text.trim();
    let (units, cents) = match text.split_once('.') {
        Some((u, c)) => (u, c),
        None => (text, ""),
    };
    if units.is_empty()
        || units.len() > 15
        || cents.len() > 2
        || !units.bytes().all(|b| b.is_ascii_digit())
        || !cents.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let units: i64 = units.parse().ok()?;
    let cents: i64 = if cents.is_empty() {
        0
    } else {
        format!("{cents:0<2}").parse().ok()?
    };
    units.checked_mul(100)?.checked_add(cents)
}

/// The header of a market's bank file.
fn header(market: Market) -> [&'static str; 6] {
    match market {
        Market::India => [
            "Beneficiary Name",
            "Beneficiary Account Number",
            "IFSC",
            "Amount (INR)",
            "Payment Reference",
            "Beneficiary Bank",
        ],
        Market::Indonesia => [
            "Beneficiary Name",
            "Beneficiary Account Number",
            "Bank Code",
            "Amount (IDR)",
            "Payment Reference",
            "Beneficiary Bank",
        ],
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BankFileAudit<'a> {
    market: &'a str,
    orders: &'a [String],
    total: i64,
}

/// The market's bank bulk payment file (finance): every approved order not paid out, not recorded for approval and
/// not in a bank file already (at most [`BANK_FILE_LIMIT`], the longest waiting first), with its beneficiary in full.
/// Each order is put in this file (`payout_sends`) in the transaction that audits `payout.bank_file` with the order
/// numbers it holds, before it is returned: a second download — the same operator again, or another at the same
/// moment — leaves them out, so no order's money is sent twice, and the borrower can no longer cancel an order whose
/// money may be on its way. An order goes back in the next file when the bank's result reports its transfer failed,
/// or when finance puts it back ([`put_back`]).
pub async fn bank_file(s: &Services, op: &Operator, market: Market) -> Result<BankFile, Error> {
    op.require_any(PAYOUT_ROLES)?;
    op.require_market(market)?;
    let rows =
        s.db.orders_awaiting_payout(market, BANK_FILE_LIMIT, 0)
            .await?;
    let mut candidates = Vec::new();
    for row in rows
        .into_iter()
        .filter(|r| r.pending_reference.is_none() && r.sent_at.is_none())
    {
        if let Some(b) = beneficiary_of(s, &row.borrower_id, market).await? {
            candidates.push((row, b));
        }
    }
    let now = s.clock.now_ms();
    let file_id = new_id();
    let mut tx = s.db.begin().await?;
    let mut csv = CsvWriter::new();
    csv.header(&header(market));
    let mut orders = Vec::new();
    let mut total = 0i64;
    for (row, b) in candidates {
        let Some(attempt) = tx
            .claim_for_bank_file(&row.order_id, &file_id, &op.id, now)
            .await?
        else {
            continue;
        };
        csv.text(&b.name)
            .text(&b.account_number)
            .text(b.routing_code())
            .raw(&bank_amount(row.currency, row.net_disbursed))
            .text(&send_reference(&row.order_no, attempt))
            .text(&b.bank_name)
            .end_row();
        total += row.net_disbursed;
        orders.push(row.order_no);
    }
    let after = serde_json::to_string(&BankFileAudit {
        market: market.code(),
        orders: &orders,
        total,
    })
    .map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.bank_file",
        entity: "payout_file",
        entity_id: &file_id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(BankFile {
        filename: format!(
            "kilat-payouts-{}-{}.csv",
            market.code(),
            s.clock.today(market)
        ),
        csv: csv.finish(),
        orders,
        total,
    })
}

/// What became of one line of a bank result file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineOutcome {
    /// Paid out now: the loan started.
    Paid,
    /// Above the threshold: recorded, waiting for a second finance operator.
    AwaitingApproval,
    /// The order was paid out already, under this bank reference: nothing done (a file imported twice pays nothing
    /// twice).
    AlreadyPaid,
    /// The order was paid out already under another bank reference: the bank reports a second transfer for it. Nothing
    /// recorded; finance recovers the money (the existing reference is in `detail`).
    SecondTransfer,
    /// The order's payout is recorded and waits for approval already: nothing done.
    AlreadyRecorded,
    /// The bank reports the transfer failed: nothing recorded; the order stays approved and goes back in the next
    /// bank file.
    Failed,
    /// The bank reports a transfer failed from another file than the one the order is in now (an earlier file's
    /// result imported again): nothing done — the order stays in its newer file, whose money may be on its way
    /// (`detail`: that file's reference for it).
    FailedOtherFile,
    /// The bank reports the transfer failed (or returned) for an order Kilat has paid out: the loan runs on money the
    /// borrower may never have had. Nothing recorded; finance checks with the bank (`detail`: the payout's reference).
    FailedAfterPayout,
    /// The amount differs from the order's payout amount: nothing recorded.
    AmountMismatch,
    /// No order of this market has this reference.
    UnknownReference,
    /// The reference appeared on an earlier line of the file: this line is ignored.
    DuplicateLine,
    /// The order is neither approved nor paid out (rejected, cancelled): nothing recorded.
    NotPayable,
    /// The line could not be read (a missing or malformed field): nothing recorded.
    Invalid,
}

impl LineOutcome {
    pub fn code(self) -> &'static str {
        match self {
            Self::Paid => "paid",
            Self::AwaitingApproval => "awaiting_approval",
            Self::AlreadyPaid => "already_paid",
            Self::SecondTransfer => "second_transfer",
            Self::AlreadyRecorded => "already_recorded",
            Self::Failed => "failed",
            Self::FailedOtherFile => "failed_other_file",
            Self::FailedAfterPayout => "failed_after_payout",
            Self::AmountMismatch => "amount_mismatch",
            Self::UnknownReference => "unknown_reference",
            Self::DuplicateLine => "duplicate_line",
            Self::NotPayable => "not_payable",
            Self::Invalid => "invalid",
        }
    }
}

/// One line's answer.
#[derive(Debug, Clone)]
pub struct ImportedLine {
    /// The line of the file (from 1; the header is line 1).
    pub line: usize,
    /// The reference (the order number, with its send's number from the second: [`send_reference`]) as the file
    /// gives it.
    pub reference: String,
    pub bank_reference: String,
    /// Minor units as read; `None` when unreadable.
    pub amount: Option<i64>,
    pub outcome: LineOutcome,
    /// Minor units: the order's payout amount, when the line's differs.
    pub expected_amount: Option<i64>,
    /// What is wrong with an invalid line (the field), or the existing bank reference of a paid order.
    pub detail: Option<String>,
}

/// The answer to a result file.
pub struct ImportReport {
    pub market: Market,
    pub lines: Vec<ImportedLine>,
}

/// A line's status as banks write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BankStatus {
    Success,
    Failed,
}

fn bank_status(text: &str) -> Option<BankStatus> {
    match text.trim().to_ascii_lowercase().as_str() {
        "success" | "successful" | "succeeded" | "paid" | "processed" | "completed"
        | "berhasil" | "sukses" => Some(BankStatus::Success),
        "failed" | "failure" | "rejected" | "returned" | "gagal" | "ditolak" => {
            Some(BankStatus::Failed)
        }
        _ => None,
    }
}

/// The columns a result file needs, by the names banks use (case, spaces and `_` ignored).
const REFERENCE_NAMES: &[&str] = &[
    "reference",
    "paymentreference",
    "orderno",
    "ordernumber",
    "customerreference",
    "remark",
];
const BANK_REFERENCE_NAMES: &[&str] = &[
    "bankreference",
    "utr",
    "utrnumber",
    "utrno",
    "transactionreference",
    "bankref",
];
const STATUS_NAMES: &[&str] = &["status", "transactionstatus", "paymentstatus"];
const AMOUNT_NAMES: &[&str] = &[
    "amount",
    "amountinr",
    "amountidr",
    "amount(inr)",
    "amount(idr)",
];

fn column(header: &[String], names: &[&str]) -> Option<usize> {
    header.iter().position(|h| {
        let key: String = h
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        names.contains(&key.as_str())
    })
}

fn unreadable(e: CsvError) -> Error {
    let (line, reason) = match e {
        CsvError::UnclosedQuote { line } => (line, "a quote is not closed"),
        CsvError::StrayQuote { line } => (line, "a quote inside a field"),
    };
    Error::Validation(FieldErrors::one(
        "content",
        FieldProblem::new("field.csv_unreadable")
            .with("line", line)
            .with("reason", reason),
    ))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImportAudit<'a> {
    market: &'a str,
    lines: usize,
    outcomes: std::collections::BTreeMap<&'static str, Vec<String>>,
}

/// Imports the bank's result file of a market (finance): a CSV with a header naming the reference (the order
/// number), the bank reference (UTR), the status (success or failed) and the amount. Each line is answered: a
/// successful line whose amount equals the order's payout amount pays it out as [`super::payout::disburse`] does (each
/// payout audited; above the threshold it is recorded for approval); a repeated or already paid reference does
/// nothing again; failed, mismatched and unknown lines are listed. The import itself is audited `payout.import`.
pub async fn import_result(
    s: &Services,
    op: &Operator,
    market: Market,
    content: Option<&str>,
) -> Result<ImportReport, Error> {
    op.require_any(PAYOUT_ROLES)?;
    op.require_market(market)?;
    let content = content.unwrap_or_default();
    if content.trim().is_empty() {
        return Err(Error::Validation(FieldErrors::one(
            "content",
            FieldProblem::required(),
        )));
    }
    let records = parse(content).map_err(unreadable)?;
    let Some(((_, header), body)) = records.split_first() else {
        return Err(Error::Validation(FieldErrors::one(
            "content",
            FieldProblem::required(),
        )));
    };
    if body.len() > RESULT_LINES_LIMIT {
        return Err(Error::Validation(FieldErrors::one(
            "content",
            FieldProblem::new("field.bank_result_lines").with("max", RESULT_LINES_LIMIT),
        )));
    }
    let columns = (
        column(header, REFERENCE_NAMES),
        column(header, BANK_REFERENCE_NAMES),
        column(header, STATUS_NAMES),
        column(header, AMOUNT_NAMES),
    );
    let (Some(c_ref), Some(c_bank), Some(c_status), Some(c_amount)) = columns else {
        return Err(Error::Validation(FieldErrors::one(
            "content",
            FieldProblem::new("field.bank_result_columns").with(
                "columns",
                "reference, bank_reference (or utr), status, amount",
            ),
        )));
    };
    let mut seen = HashSet::new();
    let mut lines = Vec::with_capacity(body.len());
    for (line, record) in body {
        let cell = |i: usize| {
            record
                .get(i)
                .map(|v| v.trim().to_owned())
                .unwrap_or_default()
        };
        let reference = cell(c_ref).trim_start_matches('\'').to_owned();
        let mut answer = ImportedLine {
            line: *line,
            bank_reference: cell(c_bank).trim_start_matches('\'').to_owned(),
            amount: parse_bank_amount(&cell(c_amount)),
            reference,
            outcome: LineOutcome::Invalid,
            expected_amount: None,
            detail: None,
        };
        let status = bank_status(&cell(c_status));
        let invalid = if answer.reference.is_empty() {
            Some("reference")
        } else if status.is_none() {
            Some("status")
        } else if answer.amount.is_none() {
            Some("amount")
        } else {
            None
        };
        if let Some(field) = invalid {
            answer.detail = Some(field.to_owned());
            lines.push(answer);
            continue;
        }
        if !seen.insert(answer.reference.to_ascii_uppercase()) {
            answer.outcome = LineOutcome::DuplicateLine;
            lines.push(answer);
            continue;
        }
        answer.outcome = settle_line(s, op, market, &mut answer, status).await?;
        lines.push(answer);
    }
    let mut outcomes: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    for l in &lines {
        outcomes
            .entry(l.outcome.code())
            .or_default()
            .push(l.reference.clone());
    }
    let after = serde_json::to_string(&ImportAudit {
        market: market.code(),
        lines: lines.len(),
        outcomes,
    })
    .map_err(anyhow::Error::from)?;
    let file_id = new_id();
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.import",
        entity: "payout_file",
        entity_id: &file_id,
        before_json: None,
        after_json: Some(&after),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(ImportReport { market, lines })
}

/// Matches one readable, first-seen line to its order and acts on it.
async fn settle_line(
    s: &Services,
    op: &Operator,
    market: Market,
    line: &mut ImportedLine,
    status: Option<BankStatus>,
) -> Result<LineOutcome, Error> {
    let (order_no, attempt) = read_send_reference(&line.reference);
    let order = match s.db.order_by_no(order_no).await? {
        Some(order) if order.market == market => order,
        _ => return Ok(LineOutcome::UnknownReference),
    };
    if status == Some(BankStatus::Failed) {
        // Nothing went: the order goes back in the next file, if it is still waiting for its payout.
        if order.status != OrderState::Approved
            && let Some(payout) = s.db.payout(&order.id).await?
        {
            tracing::warn!(order = %order.order_no, "a bank result reports a failed transfer for an order paid out");
            line.detail = Some(payout.bank_reference);
            return Ok(LineOutcome::FailedAfterPayout);
        }
        if order.status == OrderState::Approved {
            match release(
                s,
                op,
                &order.id,
                "payout.send_failed",
                "failed_at_the_bank",
                Some(attempt),
            )
            .await
            {
                Ok(Release::Done | Release::InNone) => {}
                Ok(Release::InOtherSend(current)) => {
                    line.detail = Some(send_reference(&order.order_no, current));
                    return Ok(LineOutcome::FailedOtherFile);
                }
                Err(e) => return Err(e),
            }
        }
        return Ok(LineOutcome::Failed);
    }
    if line.amount != Some(order.net_disbursed) {
        line.expected_amount = Some(order.net_disbursed);
        return Ok(LineOutcome::AmountMismatch);
    }
    if order.status != OrderState::Approved {
        return paid_before(s, &order.id, line).await;
    }
    match pay_or_record(s, op, &order, Some(&line.bank_reference), Sent::InBankFile).await {
        Ok(PayoutOutcome::Disbursed(_)) => Ok(LineOutcome::Paid),
        Ok(PayoutOutcome::AwaitingApproval(_)) => Ok(LineOutcome::AwaitingApproval),
        Err(Error::Refused(Refusal::PayoutAwaitingApproval)) => Ok(LineOutcome::AlreadyRecorded),
        Err(Error::Refused(Refusal::InvalidTransition)) => {
            // Paid (or closed) between the read above and the payout's own lock.
            paid_before(s, &order.id, line).await
        }
        Err(Error::Validation(_)) => {
            line.detail = Some("bankReference".to_owned());
            Ok(LineOutcome::Invalid)
        }
        Err(e) => Err(e),
    }
}

/// A success line for an order no longer approved: paid out under this reference (a file imported again), paid out
/// under another (a second transfer: the existing reference in `detail`), or never paid out (not payable).
async fn paid_before(
    s: &Services,
    order_id: &str,
    line: &mut ImportedLine,
) -> Result<LineOutcome, Error> {
    Ok(match s.db.payout(order_id).await? {
        Some(payout) => {
            let same = payout
                .bank_reference
                .eq_ignore_ascii_case(line.bank_reference.trim());
            line.detail = Some(payout.bank_reference);
            if same {
                LineOutcome::AlreadyPaid
            } else {
                tracing::warn!(
                    order = order_id,
                    "a bank result reports a second transfer for an order paid out"
                );
                LineOutcome::SecondTransfer
            }
        }
        None => LineOutcome::NotPayable,
    })
}

/// What [`release`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    /// The order is out of its file: the next file holds it.
    Done,
    /// It was in no file.
    InNone,
    /// It is in a file, but another send's (this number) than the one named: left in it.
    InOtherSend(i64),
}

/// Takes an order out of the bank file it is in (only if that is its send number `attempt`, when given: a failed line
/// of an earlier file leaves it in a newer one), audited `action` with when and by whom it was put in, with the order
/// locked. Finance's put-back (`attempt` none) only takes an order still waiting for its payout with none recorded for
/// approval (a recorded payout was sent: a checker's rejection must not put it in another file), else
/// `invalid_transition`.
async fn release(
    s: &Services,
    op: &Operator,
    order_id: &str,
    action: &'static str,
    why: &str,
    attempt: Option<i64>,
) -> Result<Release, Error> {
    let mut tx = s.db.begin().await?;
    let order = tx
        .order_for_update(order_id)
        .await?
        .ok_or(Error::NotFound)?;
    if attempt.is_none()
        && (order.status != OrderState::Approved
            || tx.payout_approval_in_tx(order_id).await?.is_some())
    {
        return Err(Refusal::InvalidTransition.into());
    }
    let now = s.clock.now_ms();
    let Some((sent_by, sent_at, sent)) = tx.release_payout_send(order_id, attempt, now).await?
    else {
        return Ok(match tx.payout_send_attempt_in_tx(order_id).await? {
            Some(current) => Release::InOtherSend(current),
            None => Release::InNone,
        });
    };
    let before =
        serde_json::json!({"sentBy": sent_by, "sentAt": sent_at, "attempt": sent}).to_string();
    let after = serde_json::json!({"reason": why}).to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action,
        entity: "order",
        entity_id: order_id,
        before_json: Some(&before),
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(Release::Done)
}

/// Puts an order that was in a bank file back for the next one (finance), when the bank did not pay it: the upload
/// was refused, or never made. Audited `payout.put_back`. An order in no file is `not_found`; one no longer waiting
/// for its payout (paid out, or recorded for approval) cannot go back (`invalid_transition`).
pub async fn put_back(s: &Services, op: &Operator, order_no: &str) -> Result<(), Error> {
    op.require_any(PAYOUT_ROLES)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    match release(
        s,
        op,
        &order.id,
        "payout.put_back",
        "not_paid_by_the_bank",
        None,
    )
    .await?
    {
        Release::Done => Ok(()),
        Release::InNone | Release::InOtherSend(_) => Err(Error::NotFound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_written_in_units_with_the_currency_s_decimals() {
        assert_eq!(bank_amount(Currency::Inr, 1_941_000), "19410.00");
        assert_eq!(bank_amount(Currency::Inr, 1_941_005), "19410.05");
        assert_eq!(bank_amount(Currency::Idr, 300_000_000), "3000000");
        assert_eq!(bank_amount(Currency::Idr, 300_000_050), "3000000.50");
    }

    #[test]
    fn amounts_are_read_exactly() {
        assert_eq!(parse_bank_amount("19410.00"), Some(1_941_000));
        assert_eq!(parse_bank_amount("19410.5"), Some(1_941_050));
        assert_eq!(parse_bank_amount(" 3000000 "), Some(300_000_000));
        for bad in ["", "-1", "1,000", "1.234", "abc", "1e5", ".5"] {
            assert_eq!(parse_bank_amount(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_send_s_reference_is_the_order_number_then_numbered_and_reads_back() {
        let no = "KL-261123-7F3K9Q";
        assert_eq!(send_reference(no, 1), no);
        assert_eq!(send_reference(no, 2), "KL-261123-7F3K9Q-2");
        for attempt in [1, 2, 3, 12] {
            assert_eq!(
                read_send_reference(&send_reference(no, attempt)),
                (no, attempt)
            );
        }
        // An order number whose random part is all digits is still the order number, not a send of `KL-261123`.
        assert_eq!(
            read_send_reference("KL-261123-123456"),
            ("KL-261123-123456", 1)
        );
        for odd in [
            "KL-261123-7F3K9Q-",
            "KL-261123-7F3K9Q-x",
            "KL-261123-7F3K9Q-1",
            "KL-261123-7F3K9Q-0",
            "REF-1",
            "",
        ] {
            assert_eq!(read_send_reference(odd), (odd, 1), "{odd}");
        }
    }

    #[test]
    fn statuses_and_columns_are_recognised_by_the_names_banks_use() {
        assert_eq!(bank_status("SUCCESS"), Some(BankStatus::Success));
        assert_eq!(bank_status("Gagal"), Some(BankStatus::Failed));
        assert_eq!(bank_status("pending"), None);
        let header: Vec<String> = ["Payment Reference", "UTR No", "Status", "Amount (INR)"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(column(&header, REFERENCE_NAMES), Some(0));
        assert_eq!(column(&header, BANK_REFERENCE_NAMES), Some(1));
        assert_eq!(column(&header, STATUS_NAMES), Some(2));
        assert_eq!(column(&header, AMOUNT_NAMES), Some(3));
    }
}
