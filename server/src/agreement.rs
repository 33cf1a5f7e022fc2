//! The loan agreement, rendered from the KFS the borrower accepted and their certification, in the request's
//! language. Every figure comes from the stored KFS: the agreement cannot say anything the KFS does not.

use kilat_domain::{GrievanceOfficer, KeyFactStatement, Lender, Market, Money};
use serde::Serialize;
use utoipa::ToSchema;

use crate::display::format_money;
use crate::http::lang::Lang;

/// The borrower as the agreement names them, numbers masked.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgreementBorrower {
    pub full_name: String,
    pub id_number_masked: String,
    pub address: String,
    pub phone_masked: String,
    pub bank_name: String,
    pub bank_account_masked: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Clause {
    pub heading: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Agreement {
    pub order_no: String,
    pub title: String,
    /// Epoch milliseconds: when the borrower confirmed.
    pub accepted_at: i64,
    #[schema(value_type = Object)]
    pub lender: Lender,
    pub borrower: AgreementBorrower,
    /// The accepted KFS (docs/MONEY.md §8).
    #[schema(value_type = Object)]
    pub kfs: KeyFactStatement,
    pub clauses: Vec<Clause>,
}

/// Renders the agreement of an accepted KFS.
pub fn render(
    lang: Lang,
    order_no: &str,
    accepted_at: i64,
    kfs: &KeyFactStatement,
    borrower: AgreementBorrower,
) -> Agreement {
    let m = |amount: Money| format_money(amount, kfs.currency);
    let en = lang == Lang::En;
    let t = |english: String, indonesian: String| if en { english } else { indonesian };
    let lender = &kfs.lender;
    let officer = &lender.grievance_officer;
    // Statements sealed before version 2 carry no licence line.
    let licence = if lender.licence.is_empty() {
        String::new()
    } else {
        format!(" {}: {}.", lender.name, lender.licence)
    };
    let installments = kfs
        .installments
        .iter()
        .map(|i| format!("{}. {}: {}", i.number, i.due_date, m(i.amount)))
        .collect::<Vec<_>>()
        .join("; ");
    let fees = if kfs.fees.is_empty() {
        t("No fees.".into(), "Tanpa biaya.".into())
    } else {
        kfs.fees
            .iter()
            .map(|f| format!("{} {}", f.name, m(f.total)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fees_when = if kfs.fees_deducted_at_disbursal {
        t(
            "deducted from the amount paid out".into(),
            "dipotong dari dana yang dicairkan".into(),
        )
    } else {
        t(
            "paid with the installments".into(),
            "dibayar bersama cicilan".into(),
        )
    };
    let accepted = time::OffsetDateTime::from_unix_timestamp(accepted_at / 1000)
        .map(|d| d.date().to_string())
        .unwrap_or_default();
    let clauses = vec![
        Clause {
            heading: t("1. Parties".into(), "1. Para pihak".into()),
            text: t(
                format!(
                    "This agreement is between {} (the lender) and {}, ID {}, of {} (the borrower).{licence}",
                    lender.name, borrower.full_name, borrower.id_number_masked, borrower.address
                ),
                format!(
                    "Perjanjian ini dibuat antara {} (pemberi pinjaman) dan {}, nomor identitas {}, beralamat di {} (penerima pinjaman).{licence}",
                    lender.name, borrower.full_name, borrower.id_number_masked, borrower.address
                ),
            ),
        },
        Clause {
            heading: t("2. The loan".into(), "2. Pinjaman".into()),
            text: t(
                format!(
                    "The lender lends {} ({}, term {}). Fees: {} in all, {}: {}. {} is paid into account {} at {}.",
                    m(kfs.sanctioned_amount),
                    kfs.product_name,
                    kfs.term_code,
                    m(kfs.total_fees),
                    fees_when,
                    fees,
                    m(kfs.net_disbursed),
                    borrower.bank_account_masked,
                    borrower.bank_name
                ),
                format!(
                    "Pemberi pinjaman meminjamkan {} ({}, tenor {}). Biaya: total {}, {}: {}. Dana {} dicairkan ke rekening {} di {}.",
                    m(kfs.sanctioned_amount),
                    kfs.product_name,
                    kfs.term_code,
                    m(kfs.total_fees),
                    fees_when,
                    fees,
                    m(kfs.net_disbursed),
                    borrower.bank_account_masked,
                    borrower.bank_name
                ),
            ),
        },
        Clause {
            heading: t("3. Cost of the loan".into(), "3. Biaya pinjaman".into()),
            text: t(
                format!(
                    "Total interest {}; total repayable {}. The annual percentage rate (APR), all costs included, is {}.",
                    m(kfs.total_interest),
                    m(kfs.total_repayable),
                    kfs.apr_display
                ),
                format!(
                    "Total bunga {}; total yang harus dibayar {}. Tingkat biaya tahunan (APR), termasuk semua biaya, adalah {}.",
                    m(kfs.total_interest),
                    m(kfs.total_repayable),
                    kfs.apr_display
                ),
            ),
        },
        Clause {
            heading: t("4. Repayment".into(), "4. Pembayaran kembali".into()),
            text: t(
                format!(
                    "The borrower repays in {} installment(s): {}. Payments go first to fees and late charges, then interest, then principal.",
                    kfs.installments.len(),
                    installments
                ),
                format!(
                    "Penerima pinjaman membayar dalam {} cicilan: {}. Pembayaran dialokasikan lebih dulu ke biaya dan denda, lalu bunga, lalu pokok.",
                    kfs.installments.len(),
                    installments
                ),
            ),
        },
        Clause {
            heading: t("5. Late payment".into(), "5. Keterlambatan".into()),
            text: t(
                format!(
                    "For an installment paid late: a flat charge of {} once, plus {} a day for at most {} days. Late charges are never interest on interest and never exceed {} over the loan.",
                    m(kfs.late_charge.flat),
                    m(kfs.late_charge.per_day),
                    kfs.late_charge.max_days,
                    m(kfs.max_late_charges)
                ),
                format!(
                    "Untuk cicilan yang terlambat: denda tetap {} satu kali, ditambah {} per hari paling lama {} hari. Denda tidak pernah berbunga dan tidak pernah melebihi {} selama pinjaman.",
                    m(kfs.late_charge.flat),
                    m(kfs.late_charge.per_day),
                    kfs.late_charge.max_days,
                    m(kfs.max_late_charges)
                ),
            ),
        },
        Clause {
            heading: t("6. Cooling-off".into(), "6. Masa pertimbangan".into()),
            text: t(
                format!(
                    "Within {} days of the payout the borrower may end the loan by repaying the principal and the interest for the days used, with no other charge.",
                    kfs.cooling_off_days
                ),
                format!(
                    "Dalam {} hari setelah pencairan, penerima pinjaman dapat mengakhiri pinjaman dengan mengembalikan pokok dan bunga untuk hari yang telah berjalan, tanpa biaya lain.",
                    kfs.cooling_off_days
                ),
            ),
        },
        Clause {
            heading: t(
                "7. Nothing beyond the KFS".into(),
                "7. Tidak ada biaya di luar KFS".into(),
            ),
            text: t(
                format!(
                    "Nothing that is not in the Key Fact Statement the borrower accepted (reference {}) may be charged.",
                    &kfs.content_hash[..kfs.content_hash.len().min(12)]
                ),
                format!(
                    "Tidak ada biaya yang boleh dikenakan di luar Ringkasan Informasi Pinjaman yang telah disetujui (referensi {}).",
                    &kfs.content_hash[..kfs.content_hash.len().min(12)]
                ),
            ),
        },
        Clause {
            heading: t("8. Complaints".into(), "8. Pengaduan".into()),
            text: complaints(en, kfs.market, officer),
        },
        Clause {
            heading: t("9. Acceptance".into(), "9. Persetujuan".into()),
            text: t(
                format!(
                    "Accepted electronically on {accepted} by the borrower signed in with a one-time code sent to {}.",
                    borrower.phone_masked
                ),
                format!(
                    "Disetujui secara elektronik pada {accepted} oleh penerima pinjaman yang masuk dengan kode sekali pakai yang dikirim ke {}.",
                    borrower.phone_masked
                ),
            ),
        },
    ];
    Agreement {
        order_no: order_no.to_owned(),
        title: t(
            format!("Loan agreement {order_no}"),
            format!("Perjanjian pinjaman {order_no}"),
        ),
        accepted_at,
        lender: lender.clone(),
        borrower,
        kfs: kfs.clone(),
        clauses,
    }
}

/// The complaints clause of the lender's market: in India the grievance officer, 30 days, then the RBI Ombudsman;
/// in Indonesia the Pejabat Pengaduan, 20 working days, then OJK's consumer line (PRODUCT.md §5).
fn complaints(en: bool, market: Market, officer: &GrievanceOfficer) -> String {
    let contact = format!("{}, {}, {}", officer.name, officer.email, officer.phone);
    match (market, en) {
        (Market::India, true) => format!(
            "Grievance officer: {contact}. A complaint is answered within 30 days; if it is not, or the answer does not satisfy the borrower, the borrower may complain to the Reserve Bank of India's Ombudsman at cms.rbi.org.in."
        ),
        (Market::India, false) => format!(
            "Petugas pengaduan: {contact}. Pengaduan dijawab paling lambat 30 hari; jika tidak, atau jawabannya tidak memuaskan, penerima pinjaman dapat mengadu ke Ombudsman Reserve Bank of India di cms.rbi.org.in."
        ),
        (Market::Indonesia, true) => format!(
            "Complaints officer (Pejabat Pengaduan): {contact}. A complaint is answered within 20 working days; if it is not resolved, the borrower may complain to the Financial Services Authority (OJK) on its consumer line, 157."
        ),
        (Market::Indonesia, false) => format!(
            "Pejabat Pengaduan: {contact}. Pengaduan dijawab paling lambat 20 hari kerja; jika tidak terselesaikan, penerima pinjaman dapat mengadu ke Otoritas Jasa Keuangan (OJK) melalui Kontak OJK 157."
        ),
    }
}
