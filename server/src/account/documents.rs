//! The documents of a loan as PDF files: the accepted Key Fact Statement and the loan agreement, rendered from the
//! order's stored KFS and frozen agreement snapshot (never from today's certification or catalog). Text is set in
//! DejaVu Sans (server/fonts, Bitstream Vera licence), embedded and subset, so ₹, Rp and Indonesian text print right
//! and the text can be extracted (each font carries its ToUnicode map).

use std::io::Cursor;

use kilat_domain::{KeyFactStatement, Money};
use printpdf::{IndirectFontRef, Mm, PdfDocument, PdfDocumentReference, PdfLayerReference};

use crate::auth::Borrower;
use crate::error::Error;
use crate::i18n::{self, Lang, format_money};
use crate::orders::agreement::{self, Agreement};
use crate::services::Services;

/// DejaVu Sans Book: covers Latin, the rupee sign (U+20B9) and everything Indonesian needs.
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

const PAGE_W: f32 = 210.0;
const PAGE_H: f32 = 297.0;
const MARGIN: f32 = 20.0;
/// Characters on one line of body text (10 pt DejaVu Sans over 170 mm, with room to spare).
const BODY_CHARS: usize = 92;

/// Which document of a loan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    Kfs,
    Agreement,
}

impl Document {
    /// The file name the download suggests.
    pub fn file_name(self, order_no: &str) -> String {
        match self {
            Document::Kfs => format!("{order_no}-kfs.pdf"),
            Document::Agreement => format!("{order_no}-agreement.pdf"),
        }
    }
}

/// The PDF of one of the borrower's orders, in `lang`. Another borrower's order is not found.
pub async fn render(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    document: Document,
    lang: Lang,
) -> Result<Vec<u8>, Error> {
    let agreement = agreement::of_order(s, borrower, order_no, lang).await?;
    let pdf = match document {
        Document::Kfs => kfs_pdf(&agreement, lang),
        Document::Agreement => agreement_pdf(&agreement, lang),
    };
    pdf.map_err(|e| Error::Internal(e.context("rendering a PDF")))
}

/// Lays out lines top to bottom, starting a new page when one is full.
struct Writer {
    doc: PdfDocumentReference,
    font: IndirectFontRef,
    layer: PdfLayerReference,
    y: f32,
    lang: Lang,
    pages: u32,
}

impl Writer {
    fn new(title: &str, lang: Lang) -> anyhow::Result<Self> {
        let (doc, page, layer) = PdfDocument::new(title, Mm(PAGE_W), Mm(PAGE_H), "text");
        let font = doc
            .add_external_font(Cursor::new(FONT))
            .map_err(|e| anyhow::anyhow!("loading the PDF font: {e}"))?;
        let layer = doc.get_page(page).get_layer(layer);
        let mut writer = Self {
            doc,
            font,
            layer,
            y: PAGE_H - MARGIN,
            lang,
            pages: 1,
        };
        writer.footer();
        Ok(writer)
    }

    fn footer(&mut self) {
        let text = i18n::format(self.lang, "pdf.page", &[("n", &self.pages.to_string())]);
        self.layer
            .use_text(text, 8.0, Mm(MARGIN), Mm(MARGIN / 2.0), &self.font);
    }

    fn room(&mut self, height: f32) {
        if self.y - height < MARGIN {
            let (page, layer) = self.doc.add_page(Mm(PAGE_W), Mm(PAGE_H), "text");
            self.layer = self.doc.get_page(page).get_layer(layer);
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
        self.layer
            .use_text(text, size, Mm(MARGIN + indent), Mm(self.y), &self.font);
    }

    /// A paragraph of body text, wrapped at word boundaries.
    fn paragraph(&mut self, text: &str) {
        for line in wrap(text, BODY_CHARS) {
            self.line(&line, 10.0, 0.0);
        }
        self.y -= 1.5;
    }

    fn heading(&mut self, text: &str) {
        self.y -= 2.0;
        self.room(12.0);
        self.line(text, 12.0, 0.0);
        self.y -= 1.0;
    }

    /// `label: value` on one line (wrapped when long).
    fn field(&mut self, label: &str, value: &str) {
        self.paragraph(&format!("{label}: {value}"));
    }

    fn finish(self) -> anyhow::Result<Vec<u8>> {
        self.doc
            .save_to_bytes()
            .map_err(|e| anyhow::anyhow!("writing the PDF: {e}"))
    }
}

/// Splits `text` into lines of at most `width` characters at spaces (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
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

fn date_of(epoch_ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(epoch_ms / 1000)
        .map(|d| d.date().to_string())
        .unwrap_or_default()
}

/// The parties as every document names them: order number, lender with licence, borrower, payout account.
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
        "pdf.accepted",
        &[("date", &date_of(a.accepted_at))],
    ));
}

fn kfs_pdf(a: &Agreement, lang: Lang) -> anyhow::Result<Vec<u8>> {
    let kfs = &a.kfs;
    let t = |key: &str| i18n::text(lang, key);
    let m = |amount: Money| format_money(amount, kfs.currency);
    let mut w = Writer::new(t("pdf.kfs_title"), lang)?;
    w.line(t("pdf.kfs_title"), 16.0, 0.0);
    w.y -= 3.0;
    parties(&mut w, a, lang);
    w.heading(t("pdf.kfs_title"));
    w.field(t("pdf.sanctioned"), &m(kfs.sanctioned_amount));
    for fee in &kfs.fees {
        w.field(&format!("{} — {}", t("pdf.fees"), fee.name), &m(fee.total));
    }
    w.field(t("pdf.net_disbursed"), &m(kfs.net_disbursed));
    w.field(t("pdf.total_interest"), &m(kfs.total_interest));
    w.field(t("pdf.total_repayable"), &m(kfs.total_repayable));
    w.field(t("pdf.apr"), &kfs.apr_display);
    w.heading(t("pdf.installments"));
    for i in &kfs.installments {
        w.paragraph(&i18n::format(
            lang,
            "pdf.installment_row",
            &[
                ("number", &i.number.to_string()),
                ("date", &i.due_date.to_string()),
                ("amount", &m(i.amount)),
            ],
        ));
    }
    w.heading(t("pdf.late_charges"));
    w.paragraph(&i18n::format(
        lang,
        "pdf.late_charges_text",
        &[
            ("flat", &m(kfs.late_charge.flat)),
            ("per_day", &m(kfs.late_charge.per_day)),
            ("max_days", &kfs.late_charge.max_days.to_string()),
            ("max_total", &m(kfs.max_late_charges)),
        ],
    ));
    w.heading(t("pdf.cooling_off"));
    w.paragraph(&i18n::format(
        lang,
        "pdf.cooling_off_text",
        &[("days", &kfs.cooling_off_days.to_string())],
    ));
    w.heading(t("pdf.extension"));
    w.paragraph(&extension_text(kfs, lang));
    let officer = &kfs.lender.grievance_officer;
    w.heading(t("pdf.grievance"));
    w.paragraph(&format!(
        "{}, {}, {}",
        officer.name, officer.email, officer.phone
    ));
    w.finish()
}

/// The KFS's extension in words (PRODUCT.md §7): the days, how many times, the fee on this loan and its rule, or that
/// there is none. A statement sealed before version 4 has the rule but not the amount: the rule alone is stated.
fn extension_text(kfs: &KeyFactStatement, lang: Lang) -> String {
    let Some(terms) = kfs.extension else {
        return i18n::text(lang, "pdf.extension_none").to_owned();
    };
    let m = |amount: Money| format_money(amount, kfs.currency);
    let mut rule = Vec::new();
    if terms.fee_percent.ppb() != 0 {
        let percent = match lang {
            Lang::En => terms.fee_percent.to_string(),
            Lang::Id => terms.fee_percent.to_string().replace('.', ","),
        };
        rule.push(i18n::format(
            lang,
            "pdf.extension_rule_percent",
            &[("percent", &percent)],
        ));
    }
    if terms.fee_fixed.minor() != 0 || rule.is_empty() {
        rule.push(m(terms.fee_fixed));
    }
    let fee = match &kfs.extension_fee {
        Some(fee) if fee.tax.minor() != 0 => i18n::format(
            lang,
            "pdf.extension_fee_with_tax",
            &[
                ("total", &m(fee.total)),
                ("rule", &rule.join(" + ")),
                ("tax", &m(fee.tax)),
            ],
        ),
        Some(fee) => format!("{} ({})", m(fee.total), rule.join(" + ")),
        None => rule.join(" + "),
    };
    i18n::format(
        lang,
        "pdf.extension_text",
        &[
            ("days", &terms.days.to_string()),
            ("times", &terms.max_extensions.to_string()),
            ("fee", &fee),
        ],
    )
}

fn agreement_pdf(a: &Agreement, lang: Lang) -> anyhow::Result<Vec<u8>> {
    let t = |key: &str| i18n::text(lang, key);
    let mut w = Writer::new(&a.title, lang)?;
    for line in wrap(&a.title, 60) {
        w.line(&line, 16.0, 0.0);
    }
    w.y -= 3.0;
    parties(&mut w, a, lang);
    // As the agreement's clauses write it: a decimal comma in Indonesian.
    let apr = match lang {
        Lang::En => a.kfs.apr_display.clone(),
        Lang::Id => a.kfs.apr_display.replace('.', ","),
    };
    w.field(t("pdf.apr"), &apr);
    for clause in &a.clauses {
        w.heading(&clause.heading);
        w.paragraph(&clause.text);
    }
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
