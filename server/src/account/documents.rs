//! The documents of a loan as PDF files: the accepted Key Fact Statement and the loan agreement, rendered from the
//! order's stored KFS and frozen agreement snapshot (never from today's certification or catalog), and, once the loan
//! is closed, the no-dues certificate (India) / surat keterangan lunas (Indonesia) from its replayed ledger. Each says
//! where the loan stands, in the app's words, amounts and dates (the market's calendar). Text is set in DejaVu Sans
//! (server/fonts, Bitstream Vera licence), embedded and subset, so ₹, Rp and Indonesian text print right and the text
//! can be extracted (each font carries its ToUnicode map).

use kilat_domain::{Currency, Installment, Money, OrderState};
use time::Date;

use super::pdf::TextPdf;
use crate::auth::Borrower;
use crate::error::{Error, Refusal};
use crate::i18n::{self, Lang, format_money};
use crate::infra::limits;
use crate::orders::agreement::{self, Agreement};
use crate::services::Services;
use crate::servicing::{self, Loan};

/// DejaVu Sans Book: covers Latin, the rupee sign (U+20B9) and everything Indonesian needs.
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

const PAGE_W: f32 = 210.0;
const PAGE_H: f32 = 297.0;
const MARGIN: f32 = 20.0;
/// The height of a line of 10 pt body text, in mm.
const LINE_10PT: f32 = 10.0 * 0.3528 * 1.45;
/// Characters on one line of body text (10 pt DejaVu Sans over 170 mm, with room to spare).
const BODY_CHARS: usize = 92;

/// Which document of a loan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    Kfs,
    Agreement,
    /// The no-dues certificate / surat keterangan lunas of a closed loan.
    NoDues,
}

impl Document {
    /// The file name the download suggests, in the document's language.
    pub fn file_name(self, order_no: &str, lang: Lang) -> String {
        let name = match (self, lang) {
            (Document::Kfs, Lang::En) => "key-fact-statement",
            (Document::Kfs, Lang::Id) => "ringkasan-informasi-pinjaman",
            (Document::Agreement, Lang::En) => "loan-agreement",
            (Document::Agreement, Lang::Id) => "perjanjian-pinjaman",
            (Document::NoDues, Lang::En) => "no-dues-certificate",
            (Document::NoDues, Lang::Id) => "surat-keterangan-lunas",
        };
        format!("{order_no}-{name}.pdf")
    }
}

/// The PDF of one of the borrower's orders, in `lang`. Another borrower's order is not found. Bounded: a turn among
/// the documents rendered at once (`[bounds] documents`, else `server_busy`), then the borrower's hourly count
/// ([`DOCUMENTS_PER_HOUR`](crate::infra::limits::DOCUMENTS_PER_HOUR), else `rate_limited`), and the rendering on a
/// blocking thread.
pub async fn render(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    document: Document,
) -> Result<Vec<u8>, Error> {
    // The turn first, as the data export's: a `server_busy` answer uses up none of the hour's count. It is held by the
    // rendering thread itself, so a request dropped mid-render frees it only when the render ends.
    let turn = s.bounds.documents.enter().await?;
    limits::count(
        &s.db,
        &s.limits.documents_per_borrower,
        &borrower.id,
        s.clock.now_ms(),
    )
    .await?
    .map_err(limits::Refused::rate_limited)?;
    // The market's language, whatever the browser's: a download link carries the phone's own `Accept-Language`
    // (Hindi, say), and a borrower never reads the other market's documents.
    let lang = Lang::of_market(borrower.market);
    let agreement = agreement::of_order(s, borrower, order_no, lang).await?;
    let order = crate::orders::own(s, borrower, order_no).await?;
    let status = order.status;
    // Cancelled by the lender (it could not be paid out), not by the borrower: the one with a reason.
    let withdrawn = status == OrderState::Cancelled && order.withdrawal_reason.is_some();
    // The loan after payout: its plan (the schedule moved to the payout day) and its replayed ledger.
    let loan = match status {
        OrderState::Disbursed
        | OrderState::Overdue
        | OrderState::Repaid
        | OrderState::ExitedInCoolingOff => Some(servicing::load(s, order).await?),
        OrderState::PendingReview
        | OrderState::Approved
        | OrderState::Rejected
        | OrderState::Cancelled => None,
    };
    let closed = matches!(status, OrderState::Repaid | OrderState::ExitedInCoolingOff);
    let no_dues = match (document, &loan) {
        (Document::NoDues, Some(loan)) if closed => Some((
            s.site.company(loan.order.market).clone(),
            s.clock.today(loan.order.market),
        )),
        (Document::NoDues, _) => return Err(Refusal::LoanNotClosed.into()),
        _ => None,
    };
    let pdf = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        match (document, loan.as_ref(), no_dues) {
            (Document::Kfs, loan, _) => kfs_pdf(&agreement, status, withdrawn, loan, lang),
            (Document::Agreement, loan, _) => agreement_pdf(&agreement, loan, lang),
            (Document::NoDues, Some(loan), Some((company, issued))) => {
                no_dues_pdf(&agreement, loan, &company, issued, lang)
            }
            (Document::NoDues, _, _) => Err(anyhow::anyhow!(
                "a no-dues certificate of a loan not closed"
            )),
        }
    })
    .await
    .map_err(anyhow::Error::from)?;
    pdf.map_err(|e| Error::Internal(e.context("rendering a PDF")))
}

/// Lays out lines top to bottom, starting a new page when one is full.
struct Writer {
    doc: TextPdf<'static>,
    y: f32,
    lang: Lang,
    pages: u32,
}

impl Writer {
    fn new(title: &str, lang: Lang) -> anyhow::Result<Self> {
        let mut writer = Self {
            doc: TextPdf::new(FONT, title, PAGE_W, PAGE_H)?,
            y: PAGE_H - MARGIN,
            lang,
            pages: 1,
        };
        writer.footer();
        Ok(writer)
    }

    fn footer(&mut self) {
        let text = i18n::format(self.lang, "pdf.page", &[("n", &self.pages.to_string())]);
        self.doc.text(&text, 8.0, MARGIN, MARGIN / 2.0);
    }

    fn room(&mut self, height: f32) {
        if self.y - height < MARGIN {
            self.doc.new_page();
            self.y = PAGE_H - MARGIN;
            self.pages += 1;
            self.footer();
        }
    }

    /// One line at `size` points, `indent` mm in.
    fn line(&mut self, text: &str, size: f32, indent: f32) {
        let height = size * 0.3528 * 1.45;
        self.room(height);
        self.y -= height;
        self.doc.text(text, size, MARGIN + indent, self.y);
    }

    /// A paragraph of body text, wrapped at word boundaries, kept on one page when it fits on one.
    fn paragraph(&mut self, text: &str) {
        let lines = wrap(text, BODY_CHARS);
        let height = lines.len() as f32 * LINE_10PT;
        if height < PAGE_H - 2.0 * MARGIN {
            self.room(height);
        }
        for line in lines {
            self.line(&line, 10.0, 0.0);
        }
        self.y -= 1.5;
    }

    /// A heading, never left alone at the foot of a page: it starts a page unless three lines fit after it.
    fn heading(&mut self, text: &str) {
        self.y -= 2.0;
        self.room(12.0 + 3.0 * LINE_10PT);
        self.line(text, 12.0, 0.0);
        self.y -= 1.0;
    }

    /// `label: value` on one line (wrapped when long).
    fn field(&mut self, label: &str, value: &str) {
        self.paragraph(&format!("{label}: {value}"));
    }

    fn finish(self) -> anyhow::Result<Vec<u8>> {
        self.doc.finish()
    }
}

/// Splits `text` into lines of at most `width` characters at spaces (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    // Only ordinary spaces break a line: the no-break space of "Rp 1.000.000" keeps an amount on one line.
    for word in text.split([' ', '\n', '\t']).filter(|w| !w.is_empty()) {
        let needed =
            current.chars().count() + usize::from(!current.is_empty()) + word.chars().count();
        if !current.is_empty() && needed > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// The parties as every document names them: loan number, lender with licence, borrower, payout account, and the day
/// the borrower applied (the market's calendar), when they accepted the KFS and the agreement.
fn parties(w: &mut Writer, a: &Agreement, lang: Lang) {
    let t = |key: &str| i18n::text(lang, key);
    if !a.order_no.is_empty() {
        w.field(t("pdf.order_no"), &a.order_no);
    }
    w.field(t("pdf.lender"), &a.lender.name);
    if !a.lender.licence.is_empty() {
        w.field(t("pdf.licence"), &a.lender.licence);
    }
    w.field(t("pdf.borrower"), &a.borrower.full_name);
    let account = if a.borrower.bank_name.is_empty() {
        a.borrower.bank_account_masked.clone()
    } else {
        format!(
            "{} {}",
            a.borrower.bank_name, a.borrower.bank_account_masked
        )
    };
    w.field(t("pdf.account"), &account);
    w.paragraph(&i18n::format(
        lang,
        "pdf.applied",
        &[(
            "date",
            &i18n::format_market_date(lang, a.kfs.market, a.accepted_at),
        )],
    ));
}

/// Where the loan stands, in one sentence: under review, approved, declined, withdrawn, paid out (and how it is going
/// or how it ended).
fn state_words(status: OrderState, withdrawn: bool, loan: Option<&Loan>, lang: Lang) -> String {
    let paid_out = loan.map_or_else(String::new, |l| {
        i18n::format_date(lang, l.plan.payout_date())
    });
    let key = match status {
        OrderState::PendingReview => "pdf.state_pending_review",
        OrderState::Approved => "pdf.state_approved",
        OrderState::Rejected => "pdf.state_rejected",
        OrderState::Cancelled if withdrawn => "pdf.state_withdrawn",
        OrderState::Cancelled => "pdf.state_cancelled",
        OrderState::Disbursed => "pdf.state_disbursed",
        OrderState::Overdue => "pdf.state_overdue",
        OrderState::Repaid => "pdf.state_repaid",
        OrderState::ExitedInCoolingOff => "pdf.state_exited",
    };
    i18n::format(lang, key, &[("date", &paid_out)])
}

fn kfs_pdf(
    a: &Agreement,
    status: OrderState,
    withdrawn: bool,
    loan: Option<&Loan>,
    lang: Lang,
) -> anyhow::Result<Vec<u8>> {
    let kfs = &a.kfs;
    let t = |key: &str| i18n::text(lang, key);
    let m = |amount: Money| format_money(amount, kfs.currency);
    // Until approved the amount is the one applied for; nothing is "sanctioned" or "paid out" before it is.
    let decided = matches!(
        status,
        OrderState::Approved
            | OrderState::Disbursed
            | OrderState::Overdue
            | OrderState::Repaid
            | OrderState::ExitedInCoolingOff
    );
    let mut w = Writer::new(t("pdf.kfs_title"), lang)?;
    w.line(t("pdf.kfs_title"), 16.0, 0.0);
    w.y -= 3.0;
    w.field(t("pdf.status"), &state_words(status, withdrawn, loan, lang));
    parties(&mut w, a, lang);
    w.heading(t("pdf.amounts"));
    w.field(
        t(if decided {
            "pdf.sanctioned"
        } else {
            "pdf.applied_amount"
        }),
        &m(kfs.sanctioned_amount),
    );
    // Each fee with its tax, as the screen the borrower accepted shows it (India's 18% GST on fees).
    for fee in &kfs.fees {
        let shown = if fee.tax.minor() == 0 {
            m(fee.total)
        } else {
            i18n::format(
                lang,
                if kfs.market == kilat_domain::Market::India {
                    "pdf.fee_with_gst"
                } else {
                    "pdf.fee_with_tax"
                },
                &[
                    ("total", &m(fee.total)),
                    ("amount", &m(fee.amount)),
                    ("tax", &m(fee.tax)),
                ],
            )
        };
        w.field(&fee.name, &shown);
    }
    if !kfs.fees.is_empty() {
        w.field(
            t(if kfs.fees_deducted_at_disbursal {
                "pdf.total_fees_deducted"
            } else {
                "pdf.total_fees"
            }),
            &m(kfs.total_fees),
        );
    }
    w.field(
        t(if loan.is_some() {
            "pdf.net_disbursed"
        } else {
            "pdf.net_amount"
        }),
        &m(kfs.net_disbursed),
    );
    // The rate and its method, which the APR note says the APR is not.
    let method = t(match kfs.interest.method {
        kilat_domain::InterestMethod::Flat => "pdf.method_flat",
        kilat_domain::InterestMethod::Reducing => "pdf.method_reducing",
    });
    w.field(
        t("pdf.interest"),
        &i18n::format(
            lang,
            match kfs.interest.per {
                kilat_domain::RateBasis::Year => "pdf.interest_year",
                kilat_domain::RateBasis::Day => "pdf.interest_day",
            },
            &[
                (
                    "rate",
                    &i18n::format_rate(lang, &kfs.interest.rate.to_string()),
                ),
                ("method", method),
            ],
        ),
    );
    w.field(t("pdf.total_interest"), &m(kfs.total_interest));
    w.field(t("pdf.total_repayable"), &m(kfs.total_repayable));
    w.field(
        t("pdf.apr"),
        &i18n::format_apr(lang, kfs.apr.basis_points()),
    );
    w.paragraph(t("pdf.apr_note"));
    if let Some(daily) = &kfs.daily_cost {
        let rate = |r: &kilat_domain::Rate| i18n::format_rate(lang, &r.to_string());
        w.heading(t("pdf.daily_cost"));
        w.paragraph(&i18n::format(
            lang,
            "pdf.daily_cost_text",
            &[
                ("amount", &m(daily.per_day)),
                ("rate", &rate(&daily.rate)),
                ("rate_cap", &rate(&daily.cap)),
                ("limit", &m(daily.limit)),
            ],
        ));
    }
    w.heading(t("pdf.installments"));
    // Paid out: the schedule as it runs now, from the payout day and moved by any extension; before, as the statement
    // counted it.
    let now = loan.map(|l| l.balances.schedule(&l.plan));
    let (installments, note): (&[Installment], String) = match (loan, &now) {
        (Some(l), Some(now)) => (
            now,
            i18n::format(
                lang,
                "pdf.schedule_paid_out",
                &[("date", &i18n::format_date(lang, l.plan.payout_date()))],
            ),
        ),
        _ => (
            &kfs.installments,
            i18n::format(
                lang,
                "pdf.schedule_note",
                &[("date", &i18n::format_date(lang, kfs.disbursal_date))],
            ),
        ),
    };
    w.paragraph(&note);
    let planned = loan.map(|l| l.plan.quote.installments.as_slice());
    schedule_rows(&mut w, installments, planned, kfs.currency, lang);
    w.heading(t("pdf.late_charges"));
    match agreement::late_words(kfs, lang) {
        Some(charges) => w.paragraph(&i18n::format(
            lang,
            "pdf.late_charges_text",
            &[
                ("charges", &charges),
                ("max_total", &m(kfs.max_late_charges)),
            ],
        )),
        None => w.paragraph(t("pdf.late_none")),
    }
    if kfs.cooling_off_days > 0 {
        w.heading(t("pdf.cooling_off"));
        w.paragraph(&i18n::format(
            lang,
            "pdf.cooling_off_text",
            &[(
                "days",
                &agreement::days_words(lang, i64::from(kfs.cooling_off_days)),
            )],
        ));
    }
    w.heading(t("pdf.extension"));
    match agreement::extension_words(kfs, lang) {
        Some(text) => w.paragraph(&text),
        None => w.paragraph(t("pdf.extension_none")),
    }
    if !kfs.prepayment.is_empty() {
        w.heading(t("agreement.prepayment_heading"));
        w.paragraph(t("agreement.prepayment"));
    }
    let officer = &kfs.lender.grievance_officer;
    w.heading(t("pdf.grievance"));
    w.paragraph(&format!(
        "{}, {}, {}",
        officer.name, officer.email, officer.phone
    ));
    w.finish()
}

/// The agreement as the borrower accepted it (its text is frozen: its hash was signed), followed — once the loan was
/// paid out on another day than the one it counted from, or an extension moved a due date — by the schedule as it
/// runs now, so its dates never disagree with the plan and the KFS.
fn agreement_pdf(a: &Agreement, loan: Option<&Loan>, lang: Lang) -> anyhow::Result<Vec<u8>> {
    let t = |key: &str| i18n::text(lang, key);
    let mut w = Writer::new(&a.title, lang)?;
    for line in wrap(&a.title, 60) {
        w.line(&line, 16.0, 0.0);
    }
    w.y -= 3.0;
    parties(&mut w, a, lang);
    w.field(
        t("pdf.apr"),
        &i18n::format_apr(lang, a.kfs.apr.basis_points()),
    );
    for clause in &a.clauses {
        w.heading(&clause.heading);
        w.paragraph(&clause.text);
    }
    if let Some(l) = loan {
        let now = l.balances.schedule(&l.plan);
        let planned = &l.plan.quote.installments;
        let moved_by_payout = l.plan.payout_date() != a.kfs.disbursal_date;
        if moved_by_payout || now != *planned {
            w.heading(t("pdf.installments"));
            w.paragraph(&if moved_by_payout {
                i18n::format(
                    lang,
                    "pdf.agreement_paid_out",
                    &[
                        ("date", &i18n::format_date(lang, l.plan.payout_date())),
                        ("counted", &i18n::format_date(lang, a.kfs.disbursal_date)),
                    ],
                )
            } else {
                t("pdf.agreement_extended").to_owned()
            });
            schedule_rows(&mut w, &now, Some(planned), a.kfs.currency, lang);
        }
    }
    w.finish()
}

/// One line per installment: "1. due 11 Dec 2026: ₹3,445", and for one an extension moved from its date in
/// `planned` (the schedule from the payout day), where from.
fn schedule_rows(
    w: &mut Writer,
    installments: &[Installment],
    planned: Option<&[Installment]>,
    currency: Currency,
    lang: Lang,
) {
    for i in installments {
        let was = planned
            .and_then(|p| p.iter().find(|p| p.number == i.number))
            .map(|p| p.due_date)
            .filter(|was| *was != i.due_date);
        let number = i.number.to_string();
        let date = i18n::format_date(lang, i.due_date);
        let amount = format_money(i.amount, currency);
        let mut args = vec![
            ("number", number.as_str()),
            ("date", date.as_str()),
            ("amount", amount.as_str()),
        ];
        let planned_date = was.map(|was| i18n::format_date(lang, was));
        let key = match &planned_date {
            Some(planned) => {
                args.push(("planned", planned.as_str()));
                "pdf.installment_row_extended"
            }
            None => "pdf.installment_row",
        };
        w.paragraph(&i18n::format(lang, key, &args));
    }
}

/// What the borrower paid over a closed loan, bucket by bucket, as the loan page's "What you paid" counts it: the fee
/// kept from the payout counts as paid (the borrower received that much less); after a cooling-off exit it is given
/// back, netted from what the borrower sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaidOverLoan {
    pub principal: Money,
    pub interest: Money,
    pub fees: Money,
    pub late_charges: Money,
    pub payout_fee: Money,
    pub refunded: Money,
    pub total: Money,
}

impl PaidOverLoan {
    pub fn of(loan: &Loan) -> anyhow::Result<Self> {
        let b = &loan.balances;
        let kept = b
            .principal
            .minor()
            .checked_sub(b.paid_out.minor())
            .unwrap_or(0)
            .max(0);
        let exited = b.closed_by == Some(kilat_domain::EntryKind::CoolingOffExit);
        let (payout_fee, refunded) = if exited { (0, kept) } else { (kept, 0) };
        let paid = &b.paid;
        let total = [
            paid.principal.minor(),
            paid.interest.minor(),
            paid.fees.minor(),
            paid.late_charges.minor(),
            payout_fee,
        ]
        .into_iter()
        .try_fold(0i64, i64::checked_add)
        .and_then(|sum| sum.checked_sub(refunded))
        .ok_or_else(|| anyhow::anyhow!("the amounts paid overflow"))?;
        Ok(Self {
            principal: paid.principal,
            interest: paid.interest,
            fees: paid.fees,
            late_charges: paid.late_charges,
            payout_fee: Money::from_minor(payout_fee),
            refunded: Money::from_minor(refunded),
            total: Money::from_minor(total),
        })
    }
}

/// The day a closed loan closed: the business date (the market's calendar) of the last entry of its ledger.
fn closed_on(loan: &Loan) -> Date {
    loan.entries
        .last()
        .map_or_else(|| loan.plan.payout_date(), |e| e.on)
}

/// The no-dues certificate (India) / surat keterangan lunas (Indonesia) of a closed loan: the lender as the company
/// details name it (name, registration, address), the borrower (name, masked ID), the loan (number, amount, product,
/// payout and closing days), what was paid bucket by bucket, and that nothing is owed.
fn no_dues_pdf(
    a: &Agreement,
    loan: &Loan,
    company: &crate::settings::Company,
    issued: Date,
    lang: Lang,
) -> anyhow::Result<Vec<u8>> {
    let t = |key: &str| i18n::text(lang, key);
    let currency: Currency = loan.order.currency;
    let m = |amount: Money| format_money(amount, currency);
    let paid = PaidOverLoan::of(loan)?;
    let closed = i18n::format_date(lang, closed_on(loan));
    let mut w = Writer::new(t("pdf.nodues_title"), lang)?;
    w.line(t("pdf.nodues_title"), 16.0, 0.0);
    w.y -= 3.0;
    w.field(t("pdf.lender"), &company.lender_name);
    if !company.licence.is_empty() {
        w.field(t("pdf.licence"), &company.licence);
    }
    if !company.address.is_empty() {
        w.field(t("pdf.address"), &company.address);
    }
    w.paragraph(&i18n::format(
        lang,
        "pdf.nodues_statement",
        &[
            ("lender", &company.lender_name),
            ("borrower", &a.borrower.full_name),
            ("order_no", &loan.order.order_no),
            ("date", &closed),
        ],
    ));
    w.heading(t("pdf.borrower"));
    w.field(t("pdf.name"), &a.borrower.full_name);
    if !a.borrower.id_number_masked.is_empty() {
        w.field(t("pdf.id_number"), &a.borrower.id_number_masked);
    }
    w.heading(t("pdf.nodues_loan"));
    w.field(t("pdf.order_no"), &loan.order.order_no);
    w.field(t("pdf.product"), &loan.order.product_name);
    w.field(t("pdf.sanctioned"), &m(a.kfs.sanctioned_amount));
    w.field(
        t("pdf.applied_on"),
        &i18n::format_market_date(lang, loan.order.market, a.accepted_at),
    );
    w.field(
        t("pdf.paid_out_on"),
        &i18n::format_date(lang, loan.plan.payout_date()),
    );
    w.field(t("pdf.closed_on"), &closed);
    w.field(
        t("pdf.closed_how"),
        t(match loan.order.status {
            OrderState::ExitedInCoolingOff => "pdf.closed_exited",
            _ => "pdf.closed_repaid",
        }),
    );
    w.heading(t("pdf.nodues_paid"));
    w.field(t("pdf.paid_principal"), &m(paid.principal));
    w.field(t("pdf.paid_interest"), &m(paid.interest));
    w.field(t("pdf.paid_fees"), &m(paid.fees));
    w.field(t("pdf.paid_late_charges"), &m(paid.late_charges));
    if paid.payout_fee.minor() != 0 {
        w.field(t("pdf.paid_payout_fee"), &m(paid.payout_fee));
    }
    if paid.refunded.minor() != 0 {
        w.field(
            t("pdf.paid_refunded"),
            &m(Money::from_minor(-paid.refunded.minor())),
        );
    }
    w.field(t("pdf.paid_total"), &m(paid.total));
    w.field(
        t("pdf.outstanding"),
        &m(loan.balances.outstanding.total().unwrap_or(Money::ZERO)),
    );
    w.y -= 3.0;
    w.paragraph(&i18n::format(
        lang,
        "pdf.issued",
        &[
            ("date", &i18n::format_date(lang, issued)),
            ("lender", &company.lender_name),
        ],
    ));
    let officer = &company.grievance_officer;
    w.field(
        t("pdf.grievance"),
        &format!("{}, {}, {}", officer.name, officer.email, officer.phone),
    );
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(wrap("aa bb cc dd", 5), vec!["aa bb", "cc dd"]);
        assert_eq!(
            wrap("averyverylongword x", 5),
            vec!["averyverylongword", "x"]
        );
        assert!(wrap("   ", 5).is_empty());
    }
}
