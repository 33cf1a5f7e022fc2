//! A loan's documents as the borrower's record (issue 19, items 1, 2 and 4): the market's own day on every number and
//! date (a loan accepted at 00:46 IST on the 27th is dated the 27th, and numbered so), the KFS PDF saying what state
//! the loan is in with the app's labels, decimal mark and dates, and the no-dues certificate / surat keterangan lunas
//! of a closed loan, only for its owner and only once it is closed. Text is extracted from the PDFs with pdf-extract.

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use reqwest::StatusCode;
use serde_json::json;
use time::Time;
use time::macros::date;

use crate::builders::{Application, ID, IN, Loan};
use crate::helpers::{TestApp, data, error, spawn_app, squash};
use crate::servicing::{disburse, operator, pay, status_of};
use crate::webhooks::{XENDIT_TOKEN, indonesian_payment, rupiah, xendit, xendit_paid};

/// The response of a document, its file name and its text with white space made single spaces (no-break spaces too).
async fn pdf(app: &TestApp, path: &str, session: &str, lang: &str) -> (String, String) {
    let response = app
        .client
        .get(app.url(path))
        .header("x-session-id", session)
        .header("accept-language", lang)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    assert_eq!(response.headers()["content-type"], "application/pdf");
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let text = pdf_extract::extract_text_from_mem(&bytes).expect("the PDF's text extracts");
    (
        disposition,
        text.split_whitespace().collect::<Vec<_>>().join(" "),
    )
}

fn kfs_path(order_no: &str) -> String {
    format!("/api/v1/borrower/orders/{order_no}/documents/kfs.pdf")
}

fn no_dues_path(order_no: &str) -> String {
    format!("/api/v1/borrower/orders/{order_no}/documents/no-dues.pdf")
}

async fn accepted_after_midnight(market: Market, product: &str, amount: i64, term: &str) {
    let app = spawn_app().await;
    // 00:46 IST on the 27th is 19:16 UTC on the 26th (and 02:16 WIB on the 27th).
    let (hh, mm) = if market == Market::India {
        (0, 46)
    } else {
        (2, 16)
    };
    app.services
        .clock
        .set_local_time(
            market,
            date!(2026 - 11 - 27),
            Time::from_hms(hh, mm, 0).unwrap(),
        )
        .unwrap();
    let utc = app.services.clock.now().to_offset(time::UtcOffset::UTC);
    assert_eq!((utc.day(), utc.hour(), utc.minute()), (26, 19, 16));
    let Application {
        session, order_no, ..
    } = app
        .borrower(market)
        .loan(product, amount, term)
        .applied()
        .await;
    assert!(order_no.starts_with("KL-261127-"), "{order_no}");

    // The agreement, on screen and in both languages' PDFs: accepted on the market's 27th, in words.
    let path = format!("/api/v1/borrower/orders/{order_no}/agreement");
    let agreement = if market == Market::India {
        data(app.get_en(&path, Some(&session)).await).await
    } else {
        data(app.get_as(&path, &session).await).await
    };
    let clauses = agreement["clauses"].as_array().unwrap();
    let acceptance = clauses.last().unwrap()["text"].as_str().unwrap();
    assert!(!acceptance.contains("2026-"), "{acceptance}");
    let expected = if market == Market::India {
        "Accepted electronically on 27 Nov 2026 "
    } else {
        "Disetujui secara elektronik pada 27 Nov 2026 "
    };
    assert!(acceptance.starts_with(expected), "{acceptance}");
    // In the market's language, whichever the browser asks for.
    let (_, text) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    let applied = if market == Market::India {
        "Applied on 27 Nov 2026,"
    } else {
        "Diajukan pada 27 Nov 2026,"
    };
    check(&text, &[applied], &["2026-11-2", "26 Nov 2026"]);
    assert_eq!(
        pdf(&app, &kfs_path(&order_no), &session, "id-ID").await.1,
        text
    );

    // A complaint filed now has a ticket of the market's day too.
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "orderNo": order_no, "description": "Checking the dates of my loan."}),
        )
        .await;
    assert_eq!(filed.status(), StatusCode::CREATED);
    let ticket = data(filed).await["ticketNo"].as_str().unwrap().to_owned();
    assert!(ticket.starts_with("CP-261127-"), "{ticket}");
    app.stop().await;
}

#[tokio::test]
async fn a_loan_accepted_at_00_46_ist_on_the_27th_is_dated_and_numbered_the_27th() {
    accepted_after_midnight(IN, "in-flexi-14d", 1_000_000, "14dx3").await;
}

#[tokio::test]
async fn a_loan_accepted_at_02_16_wib_on_the_27th_is_dated_and_numbered_the_27th() {
    accepted_after_midnight(ID, "id-kilat-30", 100_000_000, "14d").await;
}

/// Whether `text` has every one of `wanted` (white space aside) and none of `unwanted` (as written, so that
/// "Rp5.000.000" without its space is told from "Rp 5.000.000").
fn check(text: &str, wanted: &[&str], unwanted: &[&str]) {
    let flat = squash(text);
    for w in wanted {
        assert!(flat.contains(&squash(w)), "{w:?} missing from: {text}");
    }
    for u in unwanted {
        assert!(!text.contains(u), "{u:?} in: {text}");
    }
}

/// A reviewer rejects the application.
async fn reject(app: &TestApp, order_id: &str) {
    kilat_server::orders::apply(
        &app.services,
        order_id,
        kilat_domain::OrderEvent::Reject,
        &kilat_server::orders::Actor::Operator("reviewer-1".into()),
    )
    .await
    .unwrap();
}

/// In every state and both languages: the title, the loan number, the APR named as the APR with the language's
/// decimal mark, the app's money format, human dates, and never a word of a state the loan is not in.
#[tokio::test]
async fn the_kfs_pdf_says_what_state_the_loan_is_in_in_both_languages() {
    let app = spawn_app().await;
    // The due dates below are 14 days on from this business date, whatever day the test runs.
    app.set_date(date!(2026 - 11 - 27)).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;

    // Under review.
    let Application {
        session,
        order_no: pending,
        order_id: pending_id,
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .applied()
        .await;
    let order = data(
        app.get_as(&format!("/api/v1/borrower/orders/{pending}"), &session)
            .await,
    )
    .await;
    let apr = order["kfs"]["apr"].as_i64().unwrap();
    let apr_en = format!("{}.{:02}%", apr / 100, apr % 100);

    let (file_en, en) = pdf(&app, &kfs_path(&pending), &session, "en-IN").await;
    // An Indian borrower's documents are in English whatever the browser asks (a phone set to Hindi sends no "en").
    let (file_id, id) = pdf(&app, &kfs_path(&pending), &session, "id-ID").await;
    assert_eq!((&file_id, &id), (&file_en, &en));
    assert!(
        file_en.contains(&format!("{pending}-key-fact-statement.pdf")),
        "{file_en}"
    );
    check(
        &en,
        &[
            "Key Fact Statement",
            "Status: Application under review. Nothing has been paid out",
            &format!("Loan number: {pending}"),
            "Amount applied for: ₹10,000",
            &format!("Annual percentage rate (APR): {apr_en}"),
            "It is not the interest rate.",
            // The rate itself, and each fee with its GST, as the screen the borrower accepted shows them.
            "Interest rate: 0.08% a day, on the loan amount",
            "₹295 (₹250 + GST ₹45)",
            "Net amount, after fees:",
            "Total you repay:",
            "1. due 11 Dec 2026: ₹",
            "For each installment paid late: a charge of ₹400, once.",
            "Moving a due date (extension) A due date may be moved by 7 days, at most once over the loan",
        ],
        &[
            "Order number",
            "Sanctioned",
            "₹10,000.00",
            "Paid out to you",
            "2026-",
            "Approved",
        ],
    );

    // Declined: the figures applied for, never "approved".
    reject(&app, &pending_id).await;
    let (_, en) = pdf(&app, &kfs_path(&pending), &session, "en-IN").await;
    assert_eq!(
        pdf(&app, &kfs_path(&pending), &session, "id-ID").await.1,
        en,
        "in English, whatever the browser asks"
    );
    check(
        &en,
        &[
            "Status: Application declined. Nothing was paid out and nothing is owed",
            "Amount applied for: ₹10,000",
        ],
        &["Loan amount:", "Approved", "Paid out"],
    );

    // Approved, then paid out, then repaid: each says so.
    let Application {
        session,
        order_no,
        order_id: id_,
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .approved()
        .await;
    let (_, en) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    assert_eq!(
        pdf(&app, &kfs_path(&order_no), &session, "id-ID").await.1,
        en,
        "in English, whatever the browser asks"
    );
    check(
        &en,
        &[
            "Status: Approved: the lender is paying out.",
            "Loan amount: ₹10,000",
        ],
        &["Amount applied for"],
    );
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let today = app.services.clock.today(Market::India);
    let today_en = kilat_server::i18n::format_date(kilat_server::i18n::Lang::En, today);
    let (_, en) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    assert_eq!(
        pdf(&app, &kfs_path(&order_no), &session, "id-ID").await.1,
        en,
        "in English, whatever the browser asks"
    );
    check(
        &en,
        &[
            &format!("Status: Paid out on {today_en}, being repaid."),
            "Paid out to you: ₹",
        ],
        &["Net amount, after fees"],
    );
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "payoff",
        "key-500000019102",
        "500000019102",
    )
    .await;
    assert_eq!(status_of(&app, &id_).await, "repaid");
    let (_, en) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    assert_eq!(
        pdf(&app, &kfs_path(&order_no), &session, "id-ID").await.1,
        en,
        "in English, whatever the browser asks"
    );
    check(
        &en,
        &[&format!(
            "Status: Paid out on {today_en} and repaid in full. Nothing is outstanding."
        )],
        &[],
    );
    app.stop().await;
}

/// The report's case: a rejected Indonesian application, in Indonesian, with the OJK daily cost and the decimal comma.
#[tokio::test]
async fn a_rejected_indonesian_application_s_kfs_never_says_approved() {
    let app = spawn_app().await;
    let Application {
        session,
        order_no,
        order_id,
    } = app
        .borrower(ID)
        .loan("id-kilat-cicil", 500_000_000, "m3")
        .applied()
        .await;
    reject(&app, &order_id).await;
    let (file, text) = pdf(&app, &kfs_path(&order_no), &session, "id-ID").await;
    assert!(file.contains("ringkasan-informasi-pinjaman"), "{file}");
    check(
        &text,
        &[
            "Ringkasan Informasi Pinjaman",
            "Status: Pengajuan tidak disetujui.",
            "Jumlah yang diajukan: Rp 5.000.000",
            "Biaya tahunan total (APR): ",
            "Biaya harian",
            "Batas harian OJK 0,3%",
            "Pelunasan dipercepat",
            "cicilan", // the schedule
            "Suku bunga: 0,1% per hari, atas jumlah pinjaman",
        ],
        &[
            "Jumlah pinjaman disetujui",
            "Disetujui pada",
            "Nomor pesanan",
            "Suku bunga tahunan",
            "pajak Rp 0",
            "Rp5.000.000",
            "Key Fact",
            "2026-",
        ],
    );
    let apr = text.split("Biaya tahunan total (APR): ").nth(1).unwrap();
    assert!(
        apr.split('%').next().unwrap().contains(','),
        "a decimal comma: {apr}"
    );
    app.stop().await;
}

#[tokio::test]
async fn the_no_dues_certificate_of_a_repaid_indian_loan_names_the_lender_the_borrower_and_what_was_paid()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        session, order_no, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .approved()
        .await;
    // Approved, not paid out: a clear 409.
    let early = app.get_en(&no_dues_path(&order_no), Some(&session)).await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    let body = error(early).await;
    assert_eq!(body["code"], "loan_not_closed");
    assert!(
        body["msg"].as_str().unwrap().contains("not closed"),
        "{body}"
    );
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    // Paid out and owing: still 409.
    let open = app.get_as(&no_dues_path(&order_no), &session).await;
    assert_eq!(open.status(), StatusCode::CONFLICT);
    assert_eq!(error(open).await["code"], "loan_not_closed");
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "payoff",
        "key-500000019301",
        "500000019301",
    )
    .await;

    let plan = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/plan"),
            &session,
        )
        .await,
    )
    .await;
    let money = |key: &str| {
        kilat_server::i18n::format_money(
            kilat_domain::Money::from_minor(plan["paid"][key].as_i64().unwrap()),
            kilat_domain::Currency::Inr,
        )
    };
    let kept = plan["principal"].as_i64().unwrap() - plan["paidOut"].as_i64().unwrap();
    assert!(kept > 0, "Flexi 6 Weeks keeps its fee from the payout");
    let total = plan["paid"]["total"].as_i64().unwrap() + kept;
    let today = kilat_server::i18n::format_date(
        kilat_server::i18n::Lang::En,
        app.services.clock.today(Market::India),
    );
    let company = app.services.site.company(Market::India).clone();

    let (file, text) = pdf(&app, &no_dues_path(&order_no), &session, "en-IN").await;
    assert!(
        file.contains(&format!("{order_no}-no-dues-certificate.pdf")),
        "{file}"
    );
    let masked = kilat_server::certification::mask_id("ABCPE1234F");
    check(
        &text,
        &[
            "No-dues certificate",
            &format!("Lender: {}", company.lender_name),
            &format!("Registration: {}", company.licence),
            &format!("{} certifies that loan {order_no} of ", company.lender_name),
            &format!("was closed on {today} and that nothing is owed on it"),
            &format!("ID number: {masked}"),
            &format!("Loan number: {order_no}"),
            "Product: Flexi 6 Weeks",
            "Loan amount: ₹10,000",
            &format!("Paid out on: {today}"),
            &format!("Closed on: {today}"),
            "How it closed: Repaid in full",
            &format!("Principal: {}", money("principal")),
            &format!("Interest: {}", money("interest")),
            &format!("Fees: {}", money("fees")),
            &format!("Late charges: {}", money("lateCharges")),
            &format!(
                "Fee taken from the payout: {}",
                kilat_server::i18n::format_money(
                    kilat_domain::Money::from_minor(kept),
                    kilat_domain::Currency::Inr
                )
            ),
            &format!(
                "Total paid: {}",
                kilat_server::i18n::format_money(
                    kilat_domain::Money::from_minor(total),
                    kilat_domain::Currency::Inr
                )
            ),
            "Outstanding: ₹0",
            &format!("Issued on {today} by {}.", company.lender_name),
        ],
        &["ABCPE1234F", "2026-", "₹10,000.00", "₹0.00"],
    );
    assert_eq!(money("principal"), "₹10,000");
    // In English however the browser asks: never an Indonesian certificate in rupees.
    let (file, text) = pdf(&app, &no_dues_path(&order_no), &session, "id-ID").await;
    assert!(file.contains("no-dues-certificate"), "{file}");
    check(&text, &["No-dues certificate"], &["Surat Keterangan Lunas"]);

    // Only the owner: another borrower's request is not found, nobody's is unauthorized.
    let stranger = app.borrower(IN).await.session;
    assert_eq!(
        app.get_as(&no_dues_path(&order_no), &stranger)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get(&no_dues_path(&order_no)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.get_as(&no_dues_path("KL-000000-NOPE00"), &session)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn a_cooling_off_exit_gets_a_certificate_that_gives_the_fees_back() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session, order_no, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .finance(&finance)
        .disbursed()
        .await;
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "cooling_off",
        "key-500000019401",
        "500000019401",
    )
    .await;
    let plan = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/plan"),
            &session,
        )
        .await,
    )
    .await;
    let kept = plan["principal"].as_i64().unwrap() - plan["paidOut"].as_i64().unwrap();
    let m = |minor: i64| {
        kilat_server::i18n::format_money(
            kilat_domain::Money::from_minor(minor),
            kilat_domain::Currency::Inr,
        )
    };
    let (_, text) = pdf(&app, &no_dues_path(&order_no), &session, "en-IN").await;
    check(
        &text,
        &[
            "How it closed: Ended in the cooling-off period",
            &format!("Fees taken at payout, given back: {}", m(-kept)),
            // Paid out today, left today: the borrower returned what they received, no interest.
            &format!("Total paid: {}", m(plan["paidOut"].as_i64().unwrap())),
            "Interest: ₹0",
            "Outstanding: ₹0",
        ],
        &["Fee taken from the payout"],
    );
    app.stop().await;
}

#[tokio::test]
async fn the_surat_keterangan_lunas_of_a_loan_repaid_by_virtual_account_is_in_indonesian() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id, payment) =
        indonesian_payment(&app, &finance, "081298719501", "payoff").await;
    let pending = app.get_as(&no_dues_path(&order_no), &session).await;
    assert_eq!(pending.status(), StatusCode::CONFLICT);
    let body = error(pending).await;
    assert_eq!(body["code"], "loan_not_closed");
    assert!(
        body["msg"].as_str().unwrap().contains("belum ditutup"),
        "{body}"
    );
    let paid = xendit(
        &app,
        XENDIT_TOKEN,
        &xendit_paid(&payment, "xnd-docs-0001", rupiah(&payment)),
    )
    .await;
    assert_eq!(paid.status(), StatusCode::OK);
    assert_eq!(status_of(&app, &id).await, "repaid");
    let today = kilat_server::i18n::format_date(
        kilat_server::i18n::Lang::Id,
        app.services.clock.today(Market::Indonesia),
    );
    let company = app.services.site.company(Market::Indonesia).clone();
    let (file, text) = pdf(&app, &no_dues_path(&order_no), &session, "id-ID").await;
    assert!(
        file.contains(&format!("{order_no}-surat-keterangan-lunas.pdf")),
        "{file}"
    );
    check(
        &text,
        &[
            "Surat Keterangan Lunas",
            &format!("Pemberi pinjaman: {}", company.lender_name),
            &format!("Izin: {}", company.licence),
            &format!(
                "{} menerangkan bahwa pinjaman {order_no} atas nama ",
                company.lender_name
            ),
            &format!("telah ditutup pada {today}"),
            "Nomor identitas: ",
            "Produk: Kilat 30",
            "Jumlah pinjaman: Rp 1.000.000",
            "Cara ditutup: Lunas",
            "Pokok: Rp 1.000.000",
            "Biaya yang dipotong dari pencairan: Rp 10.000",
            "Sisa kewajiban: Rp 0",
            &format!("Diterbitkan pada {today} oleh {}.", company.lender_name),
        ],
        &["Rp1", "No-dues", "2026-"],
    );
    app.stop().await;
}

/// Applied on the 27th, paid out on the 28th: the agreement keeps the text the borrower accepted (due dates counted
/// from the 27th) and ends with the schedule as it runs from the payout day, the plan's own dates — so the agreement
/// never disagrees with the plan and the KFS. Paid out the day it counted from, it adds nothing.
#[tokio::test]
async fn an_agreement_paid_out_a_day_later_states_the_due_dates_counted_from_the_payout() {
    let app = spawn_app().await;
    app.set_date(date!(2026 - 11 - 27)).await;
    let Application {
        session: later_session,
        order_no: later,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .approved()
        .await;
    let Application {
        session: same_session,
        order_no: same,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .approved()
        .await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    assert_eq!(
        disburse(&app, &finance, &same).await.status(),
        StatusCode::OK
    );
    app.set_date(date!(2026 - 11 - 28)).await;
    let finance = operator(&app, "fin2", &[Role::Finance]).await;
    assert_eq!(
        disburse(&app, &finance, &later).await.status(),
        StatusCode::OK
    );
    let path = |no: &str| format!("/api/v1/borrower/orders/{no}/documents/agreement.pdf");
    let (_, en) = pdf(&app, &path(&later), &later_session, "en-IN").await;
    check(
        &en,
        &[
            "The agreement counted the due dates from 27 Nov 2026. The loan was paid out on 28 Nov 2026",
            "1. due 12 Dec 2026: ₹",
            "3. due 9 Jan 2027: ₹",
        ],
        &[],
    );
    // English however the browser asks: an Indian borrower never reads Indonesian (with rupees).
    assert_eq!(
        pdf(&app, &path(&later), &later_session, "id-ID").await.1,
        en
    );
    let (_, en) = pdf(&app, &path(&same), &same_session, "en-IN").await;
    check(&en, &[], &["The agreement counted the due dates"]);
    app.stop().await;
}

/// An extension moves a due date after the agreement and the KFS were sealed: both PDFs show the due dates as they
/// run now, and say which installment moved and from where, so a downloaded document never disagrees with the plan.
#[tokio::test]
async fn the_kfs_and_agreement_pdfs_show_a_due_date_an_extension_moved() {
    let app = spawn_app().await;
    app.set_date(date!(2026 - 11 - 27)).await;
    let Application {
        session, order_no, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .approved()
        .await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let agreement = format!("/api/v1/borrower/orders/{order_no}/documents/agreement.pdf");
    // Paid out the day it counted from, nothing moved: the agreement adds no schedule.
    let (_, before) = pdf(&app, &agreement, &session, "en-IN").await;
    check(&before, &[], &["moved from", "Extensions paid for"]);
    let (_, kfs_before) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    check(&kfs_before, &["1. due 11 Dec 2026: ₹"], &["moved from"]);
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "extension",
        "doc-ext-1",
        "500000000501",
    )
    .await;
    let (_, kfs) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    check(
        &kfs,
        &[
            "1. due 18 Dec 2026: ₹",
            "(moved from 11 Dec 2026 by an extension)",
            // An extension moves the installments after it too.
            "2. due 1 Jan 2027: ₹3,445 (moved from 25 Dec 2026 by an extension)",
        ],
        &["1. due 11 Dec 2026"],
    );
    let (_, agreement_text) = pdf(&app, &agreement, &session, "en-IN").await;
    check(
        &agreement_text,
        &[
            "Extensions paid for have moved due dates since the agreement; the amounts are the same:",
            "1. due 18 Dec 2026: ₹",
            "(moved from 11 Dec 2026 by an extension)",
        ],
        &[],
    );
    app.stop().await;
}

/// An order the lender withdrew because it could not pay it out says so in its KFS, not that the borrower withdrew it;
/// one the borrower withdrew still says the borrower did.
#[tokio::test]
async fn the_kfs_of_an_order_the_lender_withdrew_says_the_lender_did() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        session, order_no, ..
    } = app.borrower(IN).approved().await;
    let withdrawn = crate::servicing::op_call(
        &app,
        &finance,
        reqwest::Method::POST,
        &format!("/api/v1/console/orders/{order_no}/withdraw"),
        Some(json!({"reason": "Your bank returned the transfer: the account is closed."})),
    )
    .await;
    assert_eq!(withdrawn.status(), StatusCode::OK);
    let (_, text) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    check(
        &text,
        &["Status: Withdrawn by the lender: it could not be paid into your bank account."],
        &["withdrawn by the borrower"],
    );
    let Application {
        session, order_no, ..
    } = app.borrower(IN).approved().await;
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    // Approved, before migration 0035, with the reviewer's words kept as its review reason: still the borrower's.
    sqlx::query("UPDATE orders SET review_reason = 'Documents in order.' WHERE order_no = $1")
        .bind(&order_no)
        .execute(app.db.pool())
        .await
        .unwrap();
    let shown = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    assert_eq!(shown["withdrawalReason"], serde_json::Value::Null);
    let (_, text) = pdf(&app, &kfs_path(&order_no), &session, "en-IN").await;
    check(
        &text,
        &["Status: Application withdrawn by the borrower."],
        &["by the lender"],
    );
    app.stop().await;
}
