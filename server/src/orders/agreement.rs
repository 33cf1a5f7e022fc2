//! The loan agreement, rendered from the KFS and the borrower's certification, in the request's language. Every
//! figure comes from the KFS: the agreement cannot say anything the KFS does not. Before confirming, the borrower
//! reads it beside the KFS ([`preview`]); at confirm it is frozen with the order ([`snapshot`]: the borrower's
//! particulars and the rendered text in every language), and the order's agreement is that snapshot from then on
//! ([`of_order`]), whatever the certification later says.

use kilat_domain::{KeyFactStatement, Lender, Market, Money};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Borrower;
use crate::certification::{Certification, StepData, mask_account, mask_id};
use crate::content;
use crate::error::Error;
use crate::i18n::{self, Lang, format_money};
use crate::services::Services;
use crate::store::Tx;

/// The borrower as the agreement names them, numbers masked.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgreementBorrower {
    pub full_name: String,
    pub id_number_masked: String,
    pub address: String,
    pub phone_masked: String,
    pub bank_name: String,
    pub bank_account_masked: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Clause {
    pub heading: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Agreement {
    /// Empty in a preview (no order yet).
    pub order_no: String,
    pub title: String,
    /// Epoch milliseconds: when the borrower confirmed (in a preview: now).
    pub accepted_at: i64,
    pub lender: Lender,
    pub borrower: AgreementBorrower,
    /// The accepted KFS (docs/MONEY.md §8).
    pub kfs: KeyFactStatement,
    pub clauses: Vec<Clause>,
    /// What the agreement says, whatever the language: the hex SHA-256 of the KFS's hash and the borrower as named.
    /// The borrower app sends the preview's with confirm (`agreementHash`); the server freezes only an agreement with
    /// the same one.
    pub agreement_hash: String,
}

/// The hash of an agreement's content: the KFS it carries (by its content hash) and the borrower as it names them.
pub fn agreement_hash(kfs: &KeyFactStatement, party: &AgreementBorrower) -> Result<String, Error> {
    use sha2::{Digest, Sha256};
    let party = serde_json::to_string(party).map_err(anyhow::Error::from)?;
    Ok(hex::encode(Sha256::digest(
        format!("{}\n{party}", kfs.content_hash).as_bytes(),
    )))
}

/// The agreement's text in one language, as frozen at confirm.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FrozenText {
    lang: String,
    title: String,
    clauses: Vec<Clause>,
}

/// What is frozen with an order at confirm (`orders.agreement_json`, sealed to the order's row since it names the
/// borrower): the borrower as the agreement named them and the rendered title and clauses in every language the
/// server writes.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Snapshot {
    borrower: AgreementBorrower,
    texts: Vec<FrozenText>,
}

/// The borrower as their certification names them now, numbers masked.
pub async fn party_of(s: &Services, borrower: &Borrower) -> Result<AgreementBorrower, Error> {
    let certification = Certification::load(s, borrower).await?;
    Ok(party_from(borrower, &certification))
}

/// The same, read in the caller's transaction.
pub async fn party_in(
    s: &Services,
    tx: &mut Tx,
    borrower: &Borrower,
) -> Result<AgreementBorrower, Error> {
    let certification = Certification::load_in(s, tx, borrower).await?;
    Ok(party_from(borrower, &certification))
}

fn party_from(borrower: &Borrower, certification: &Certification) -> AgreementBorrower {
    let mut party = AgreementBorrower {
        full_name: String::new(),
        id_number_masked: String::new(),
        address: String::new(),
        phone_masked: borrower.phone.masked(),
        bank_name: String::new(),
        bank_account_masked: String::new(),
    };
    for data in certification.steps() {
        match data {
            StepData::Base(b) => {
                party.full_name.clone_from(&b.full_name);
                party.id_number_masked = mask_id(&b.id_number);
            }
            StepData::Personal(p) => {
                let (region, city) = content::reference()
                    .place(borrower.market, &p.region_code, &p.city_code)
                    .unwrap_or((p.region_code.as_str(), p.city_code.as_str()));
                party.address = format!("{}, {city}, {region} {}", p.address, p.postal_code);
            }
            StepData::Bank(b) => {
                party.bank_name = content::reference()
                    .bank_name(borrower.market, &b.bank_code)
                    .unwrap_or(&b.bank_code)
                    .to_owned();
                party.bank_account_masked = mask_account(&b.account_number);
            }
            StepData::Job(_) | StepData::Extended(_) => {}
        }
    }
    party
}

/// The agreement the borrower is about to accept with `kfs`, in `lang`: not yet an order's, so without an order
/// number, and dated today.
pub async fn preview(
    s: &Services,
    borrower: &Borrower,
    kfs: &KeyFactStatement,
    lang: Lang,
) -> Result<Agreement, Error> {
    let party = party_of(s, borrower).await?;
    let mut agreement = render(lang, "", s.clock.now_ms(), kfs, party);
    agreement.title = i18n::text(lang, "agreement.title_draft").to_owned();
    Ok(agreement)
}

/// The agreement of a new order, frozen as JSON for `orders.agreement_json`: `party` and the text in every language.
pub fn snapshot(
    order_no: &str,
    accepted_at: i64,
    kfs: &KeyFactStatement,
    party: &AgreementBorrower,
) -> Result<String, Error> {
    let texts = Lang::ALL
        .into_iter()
        .map(|lang| {
            let a = render(lang, order_no, accepted_at, kfs, party.clone());
            FrozenText {
                lang: lang.code().to_owned(),
                title: a.title,
                clauses: a.clauses,
            }
        })
        .collect();
    let snapshot = Snapshot {
        borrower: party.clone(),
        texts,
    };
    Ok(serde_json::to_string(&snapshot).map_err(anyhow::Error::from)?)
}

/// The agreement of one of the borrower's orders, in `lang`: the snapshot frozen at confirm with the stored KFS. An
/// order confirmed before snapshots existed (migration 0010) is rendered from the certification as it is now.
pub async fn of_order(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    lang: Lang,
) -> Result<Agreement, Error> {
    let order = super::own(s, borrower, order_no).await?;
    let kfs: KeyFactStatement =
        serde_json::from_str(&order.kfs_json).map_err(anyhow::Error::from)?;
    let Some(frozen) = s.db.order_agreement(&s.secrets, &order.id).await? else {
        let party = party_of(s, borrower).await?;
        return Ok(render(lang, &order.order_no, order.created_at, &kfs, party));
    };
    let snapshot: Snapshot = serde_json::from_str(&frozen).map_err(anyhow::Error::from)?;
    let text = snapshot
        .texts
        .into_iter()
        .find(|t| t.lang == lang.code())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the agreement of {} has no {} text",
                order.order_no,
                lang.code()
            )
        })?;
    let agreement_hash = agreement_hash(&kfs, &snapshot.borrower)?;
    Ok(Agreement {
        agreement_hash,
        order_no: order.order_no,
        title: text.title,
        accepted_at: order.created_at,
        lender: kfs.lender.clone(),
        borrower: snapshot.borrower,
        kfs,
        clauses: text.clauses,
    })
}

/// "14 days", "1 day", "14 hari".
pub fn days_words(lang: Lang, days: i64) -> String {
    let key = if days == 1 {
        "agreement.day_one"
    } else {
        "agreement.day_other"
    };
    i18n::format(lang, key, &[("n", &days.to_string())])
}

/// "once", "twice"… as the language says how many times: "once", "2 times" / "satu kali", "2 kali".
fn times_words(lang: Lang, times: u32) -> String {
    let key = if times == 1 {
        "agreement.times_one"
    } else {
        "agreement.times_other"
    };
    i18n::format(lang, key, &[("n", &times.to_string())])
}

/// How the loan is repaid, in words, read from the schedule's own dates: "3 installments every 14 days", "6 monthly
/// installments", "one payment, 30 days after the payout".
pub fn schedule_words(kfs: &KeyFactStatement, lang: Lang) -> String {
    let count = kfs.installments.len();
    let mut previous = kfs.disbursal_date;
    let mut gaps = Vec::with_capacity(count);
    for i in &kfs.installments {
        gaps.push((i.due_date - previous).whole_days());
        previous = i.due_date;
    }
    match gaps.as_slice() {
        [days] => i18n::format(
            lang,
            "agreement.schedule_single",
            &[("days", &days_words(lang, *days))],
        ),
        [first, rest @ ..] if rest.iter().all(|g| g == first) => i18n::format(
            lang,
            "agreement.schedule_every",
            &[
                ("count", &count.to_string()),
                ("days", &days_words(lang, *first)),
            ],
        ),
        gaps if gaps.iter().all(|g| (28..=31).contains(g)) => i18n::format(
            lang,
            "agreement.schedule_monthly",
            &[("count", &count.to_string())],
        ),
        _ => i18n::format(
            lang,
            "agreement.schedule_count",
            &[("count", &count.to_string())],
        ),
    }
}

/// Items as a sentence lists them: "a", "a and b", "a, b and c".
fn list_words(lang: Lang, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => i18n::format(
            lang,
            "agreement.list_and",
            &[("rest", &rest.join(", ")), ("last", last)],
        ),
    }
}

/// The late charges of a statement in words, or `None` when it has none: a flat charge, a daily one, or both.
pub fn late_words(kfs: &KeyFactStatement, lang: Lang) -> Option<String> {
    let m = |amount: Money| format_money(amount, kfs.currency);
    let late = &kfs.late_charge;
    let flat = late.flat.minor() != 0;
    let daily = late.per_day.minor() != 0 && late.max_days != 0;
    let days = days_words(lang, i64::from(late.max_days));
    let args = [
        ("flat", m(late.flat)),
        ("per_day", m(late.per_day)),
        ("days", days),
    ];
    let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let key = match (flat, daily) {
        (false, false) => return None,
        (true, false) => "agreement.late_flat",
        (false, true) => "agreement.late_per_day",
        (true, true) => "agreement.late_both",
    };
    Some(i18n::format(lang, key, &args))
}

/// The extension a statement offers in words (PRODUCT.md §7): the days, how many times, the fee on this loan and its
/// rule; `None` when it offers none. A statement sealed before version 4 has the rule but not the amount: the rule
/// alone is stated.
pub fn extension_words(kfs: &KeyFactStatement, lang: Lang) -> Option<String> {
    let terms = kfs.extension?;
    let m = |amount: Money| format_money(amount, kfs.currency);
    let mut rule = Vec::new();
    if terms.fee_percent.ppb() != 0 {
        let percent = i18n::format_rate(lang, &terms.fee_percent.to_string());
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
    Some(i18n::format(
        lang,
        "pdf.extension_text",
        &[
            ("days", &days_words(lang, i64::from(terms.days))),
            ("times", &times_words(lang, terms.max_extensions)),
            ("fee", &fee),
        ],
    ))
}

/// Renders the agreement of an accepted KFS. The clauses' texts are in the message catalogs (`agreement.*`); amounts
/// and dates are written as the app writes them, dates on the market's calendar, and a clause about something the
/// loan does not have (no late charge, no extension, no cooling-off) is left out rather than stated as zero.
pub fn render(
    lang: Lang,
    order_no: &str,
    accepted_at: i64,
    kfs: &KeyFactStatement,
    borrower: AgreementBorrower,
) -> Agreement {
    let m = |amount: Money| format_money(amount, kfs.currency);
    let t = |key: &str| i18n::text(lang, key).to_owned();
    let f = |key: &str, args: &[(&str, &str)]| i18n::format(lang, key, args);
    let lender = &kfs.lender;
    let officer = &lender.grievance_officer;
    // Statements sealed before version 2 carry no licence line.
    let licence = if lender.licence.is_empty() {
        String::new()
    } else {
        format!(" {}: {}.", lender.name, lender.licence)
    };
    let contact = format!("{}, {}, {}", officer.name, officer.email, officer.phone);
    let schedule = schedule_words(kfs, lang);
    let installments: Vec<String> = kfs
        .installments
        .iter()
        .map(|i| {
            f(
                "agreement.installment_item",
                &[
                    ("amount", &m(i.amount)),
                    ("date", &i18n::format_date(lang, i.due_date)),
                ],
            )
        })
        .collect();
    let fees = if kfs.fees.is_empty() || kfs.total_fees.minor() == 0 {
        t("agreement.no_fees")
    } else {
        let list: Vec<String> = kfs
            .fees
            .iter()
            .map(|fee| format!("{} {}", fee.name, m(fee.total)))
            .collect();
        f(
            "agreement.fees",
            &[
                ("total_fees", &m(kfs.total_fees)),
                (
                    "fees_when",
                    &t(if kfs.fees_deducted_at_disbursal {
                        "agreement.fees_deducted"
                    } else {
                        "agreement.fees_with_installments"
                    }),
                ),
                ("fees", &list_words(lang, &list)),
            ],
        )
    };
    let accepted = i18n::format_market_date(lang, kfs.market, accepted_at);
    let reference = &kfs.content_hash[..kfs.content_hash.len().min(12)];
    let apr = i18n::format_apr(lang, kfs.apr.basis_points());
    let clause = |heading: &str, key: &str, args: &[(&str, &str)]| Clause {
        heading: t(heading),
        text: f(key, args),
    };
    let repayment = match kfs.installments.as_slice() {
        [only] => clause(
            "agreement.repayment_heading",
            "agreement.repayment_single",
            &[
                ("amount", &m(only.amount)),
                ("date", &i18n::format_date(lang, only.due_date)),
            ],
        ),
        _ => clause(
            "agreement.repayment_heading",
            "agreement.repayment",
            &[
                ("schedule", &schedule),
                ("installments", &list_words(lang, &installments)),
            ],
        ),
    };
    let mut clauses = vec![
        clause(
            "agreement.parties_heading",
            "agreement.parties",
            &[
                ("lender", &lender.name),
                ("borrower", &borrower.full_name),
                ("id_number", &borrower.id_number_masked),
                ("address", &borrower.address),
                ("licence", &licence),
            ],
        ),
        clause(
            "agreement.loan_heading",
            "agreement.loan",
            &[
                ("amount", &m(kfs.sanctioned_amount)),
                ("product", &kfs.product_name),
                ("schedule", &schedule),
                ("fees", &fees),
                ("net", &m(kfs.net_disbursed)),
                ("account", &borrower.bank_account_masked),
                ("bank", &borrower.bank_name),
            ],
        ),
        clause(
            "agreement.cost_heading",
            "agreement.cost",
            &[
                ("interest", &m(kfs.total_interest)),
                ("total", &m(kfs.total_repayable)),
                ("apr", &apr),
            ],
        ),
        repayment,
    ];
    if let Some(charges) = late_words(kfs, lang) {
        clauses.push(clause(
            "agreement.late_heading",
            "agreement.late",
            &[
                ("charges", &charges),
                ("max_total", &m(kfs.max_late_charges)),
            ],
        ));
    }
    if let Some(extension) = extension_words(kfs, lang) {
        clauses.push(Clause {
            heading: t("agreement.extension_heading"),
            text: extension,
        });
    }
    if kfs.cooling_off_days > 0 {
        clauses.push(clause(
            "agreement.cooling_off_heading",
            "agreement.cooling_off",
            &[("days", &days_words(lang, i64::from(kfs.cooling_off_days)))],
        ));
    }
    // Statements sealed before version 3 state no prepayment terms, and their agreement none.
    if !kfs.prepayment.is_empty() {
        clauses.push(clause(
            "agreement.prepayment_heading",
            "agreement.prepayment",
            &[],
        ));
    }
    clauses.extend([
        clause(
            "agreement.kfs_only_heading",
            "agreement.kfs_only",
            &[("reference", reference)],
        ),
        // The complaints route of the lender's market: in India the grievance officer, 30 days, then the RBI
        // Ombudsman; in Indonesia the Pejabat Pengaduan, 20 working days, then OJK's consumer line (PRODUCT.md §5).
        clause(
            "agreement.complaints_heading",
            match kfs.market {
                Market::India => "agreement.complaints_india",
                Market::Indonesia => "agreement.complaints_indonesia",
            },
            &[("contact", &contact)],
        ),
        clause(
            "agreement.acceptance_heading",
            "agreement.acceptance",
            &[("date", &accepted), ("phone", &borrower.phone_masked)],
        ),
    ]);
    // Numbered in order, so a clause that a statement does not have leaves no gap.
    for (n, c) in clauses.iter_mut().enumerate() {
        c.heading = format!("{}. {}", n + 1, c.heading);
    }
    Agreement {
        agreement_hash: agreement_hash(kfs, &borrower).unwrap_or_default(),
        order_no: order_no.to_owned(),
        title: f("agreement.title", &[("order_no", order_no)]),
        accepted_at,
        lender: lender.clone(),
        borrower,
        kfs: kfs.clone(),
        clauses,
    }
}

/// An order's frozen agreement (`orders.agreement_json`) without the borrower's particulars, for a deleted account:
/// the name, address and masked numbers are replaced by `erased` in the party and in every clause's text; the loan's
/// terms stay as they were accepted.
pub fn erase_party(frozen: &str, erased: &str) -> Result<String, Error> {
    let mut snapshot: Snapshot = serde_json::from_str(frozen).map_err(anyhow::Error::from)?;
    let party = &mut snapshot.borrower;
    let mut particulars: Vec<String> = [
        &party.full_name,
        &party.address,
        &party.id_number_masked,
        &party.phone_masked,
        &party.bank_account_masked,
    ]
    .into_iter()
    .filter(|v| !v.trim().is_empty())
    .cloned()
    .collect();
    // The longest first, so that a value inside another (a name inside the address) is not cut in two.
    particulars.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for text in &mut snapshot.texts {
        for clause in &mut text.clauses {
            for value in &particulars {
                clause.text = clause.text.replace(value.as_str(), erased);
            }
        }
    }
    for field in [
        &mut party.full_name,
        &mut party.address,
        &mut party.id_number_masked,
        &mut party.phone_masked,
        &mut party.bank_account_masked,
    ] {
        erased.clone_into(field);
    }
    Ok(serde_json::to_string(&snapshot).map_err(anyhow::Error::from)?)
}

#[cfg(test)]
mod tests {
    //! The agreement as people read it (issue 19, item 3): the schedule in words, zero clauses left out, the app's
    //! money and dates, for a one-installment and a three-installment product, with and without late charges and an
    //! extension, in both languages.

    use kilat_domain::{CapTable, KeyFactStatement, LateCharge, Money, Product, quote_with_caps};
    use time::macros::date;

    use super::*;

    fn product(file: &str) -> Product {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("products")
            .join(file);
        Product::from_toml_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn kfs_of(product: &Product, amount: i64, term: &str) -> KeyFactStatement {
        let site = crate::settings::Settings::load(None)
            .expect("defaults")
            .site;
        let caps = CapTable::ojk_consumer();
        let quote = quote_with_caps(
            product,
            Money::from_minor(amount),
            term,
            date!(2026 - 11 - 27),
            &caps,
        )
        .unwrap();
        KeyFactStatement::new_with_caps(&quote, &site.lender(quote.market), &caps).unwrap()
    }

    fn party() -> AgreementBorrower {
        AgreementBorrower {
            full_name: "Ravi Kumar".into(),
            id_number_masked: "ABCPE****F".into(),
            address: "12 MG Road, Mumbai, Maharashtra 400001".into(),
            phone_masked: "+91 ******3210".into(),
            bank_name: "HDFC Bank".into(),
            bank_account_masked: "**** **** 7890".into(),
        }
    }

    /// 2026-11-26 19:16 UTC: 00:46 IST and 02:16 WIB on the 27th.
    const ACCEPTED: i64 = 1_795_720_560_000;

    /// The clauses' text by heading (without its number).
    fn clauses(kfs: &KeyFactStatement, lang: Lang) -> Vec<(String, String)> {
        render(lang, "KL-261127-ABC123", ACCEPTED, kfs, party())
            .clauses
            .into_iter()
            .map(|c| {
                let heading = c.heading.split_once(". ").unwrap().1.to_owned();
                (heading, c.text)
            })
            .collect()
    }

    fn clause<'a>(all: &'a [(String, String)], heading: &str) -> &'a str {
        &all.iter()
            .find(|(h, _)| h == heading)
            .unwrap_or_else(|| panic!("no clause {heading}: {all:#?}"))
            .1
    }

    fn has_clause(all: &[(String, String)], heading: &str) -> bool {
        all.iter().any(|(h, _)| h == heading)
    }

    /// No machine wording and no zero amounts anywhere.
    fn reads_as_people_write(all: &[(String, String)]) {
        for (heading, text) in all {
            for bad in [
                "installment(s)",
                "14dx3",
                "tenor 14d",
                "30d",
                "₹0.00",
                "₹0 ",
                "Rp0",
                "Rp\u{a0}0 ",
                " 0 days",
                " 0 hari",
                "KFS",
                "2026-",
            ] {
                assert!(!text.contains(bad), "{heading}: {bad:?} in {text}");
                assert!(!heading.contains(bad), "{heading}: {bad:?}");
            }
        }
    }

    #[test]
    fn three_installments_with_a_flat_late_charge_and_an_extension_in_english() {
        let kfs = kfs_of(&product("in-flexi-14d.toml"), 1_000_000, "14dx3");
        let all = clauses(&kfs, Lang::En);
        reads_as_people_write(&all);
        let loan = clause(&all, "The loan");
        assert!(
            loan.starts_with(
                "The lender lends ₹10,000 (Flexi 6 Weeks), repaid in 3 installments every 14 days. Fees: "
            ),
            "{loan}"
        );
        let repayment = clause(&all, "Repayment");
        assert!(
            repayment.starts_with("The borrower repays in 3 installments every 14 days: ₹"),
            "{repayment}"
        );
        assert!(repayment.contains(" on 11 Dec 2026, ₹"), "{repayment}");
        assert!(repayment.contains(" on 25 Dec 2026 and ₹"), "{repayment}");
        assert!(
            repayment.contains(" on 8 Jan 2027. Payments go first"),
            "{repayment}"
        );
        assert_eq!(
            clause(&all, "Late payment"),
            format!(
                "For an installment paid late: a charge of ₹400, once. Late charges are never interest on interest and \
                 never exceed {} over the loan.",
                format_money(kfs.max_late_charges, kfs.currency)
            )
        );
        let extension = clause(&all, "Moving a due date");
        assert!(
            extension.starts_with(
                "A due date may be moved by 7 days, at most once over the loan, for a fee of ₹"
            ),
            "{extension}"
        );
        assert!(extension.contains("(2% of the loan amount"), "{extension}");
        assert_eq!(
            clause(&all, "Cooling-off"),
            "Within 3 days of the payout the borrower may end the loan by repaying the principal and the interest for \
             the days used. Any fee deducted from the payout is given back to the borrower, taken off the amount \
             repaid. There is no other charge."
        );
        assert!(has_clause(&all, "No other charges"));
        assert_eq!(
            clause(&all, "Acceptance"),
            "Accepted electronically on 27 Nov 2026 by the borrower signed in with a one-time code sent to \
             +91 ******3210."
        );
    }

    #[test]
    fn three_installments_without_late_charges_or_extension_leave_both_clauses_out_in_both_languages()
     {
        let mut p = product("in-flexi-14d.toml");
        p.late_charge = LateCharge {
            flat: Money::ZERO,
            per_day: Money::ZERO,
            ..p.late_charge
        };
        p.extension = None;
        let kfs = kfs_of(&p, 1_000_000, "14dx3");
        for (lang, late, extension) in [
            (Lang::En, "Late payment", "Moving a due date"),
            (Lang::Id, "Keterlambatan", "Perpanjangan jatuh tempo"),
        ] {
            let all = clauses(&kfs, lang);
            reads_as_people_write(&all);
            assert!(!has_clause(&all, late), "{all:#?}");
            assert!(!has_clause(&all, extension), "{all:#?}");
            // Numbered without a gap.
            let numbers: Vec<String> = render(lang, "KL-1", ACCEPTED, &kfs, party())
                .clauses
                .iter()
                .map(|c| c.heading.split_once('.').unwrap().0.to_owned())
                .collect();
            let expected: Vec<String> = (1..=numbers.len()).map(|n| n.to_string()).collect();
            assert_eq!(numbers, expected);
        }
        let id = clauses(&kfs, Lang::Id);
        assert!(
            clause(&id, "Pinjaman").starts_with(
                "Pemberi pinjaman meminjamkan ₹10,000 (Flexi 6 Weeks), dibayar kembali dalam 3 cicilan setiap 14 hari."
            ),
            "{id:#?}"
        );
        assert!(
            clause(&id, "Pembayaran kembali")
                .starts_with("Penerima pinjaman membayar dalam 3 cicilan setiap 14 hari: ₹"),
            "{id:#?}"
        );
        assert!(clause(&id, "Pembayaran kembali").contains(" pada 11 Des 2026, ₹"));
    }

    #[test]
    fn one_installment_with_a_daily_late_charge_and_an_extension_in_indonesian() {
        let kfs = kfs_of(&product("id-kilat-30.toml"), 100_000_000, "14d");
        let all = clauses(&kfs, Lang::Id);
        reads_as_people_write(&all);
        let loan = clause(&all, "Pinjaman");
        assert!(
            loan.starts_with(
                "Pemberi pinjaman meminjamkan Rp\u{a0}1.000.000 (Kilat 30), dibayar kembali dalam satu kali \
                 pembayaran, 14 hari setelah pencairan. Biaya: total Rp\u{a0}10.000, dipotong dari dana yang \
                 dicairkan: Biaya layanan Rp\u{a0}10.000. Dana Rp\u{a0}990.000 dicairkan ke rekening"
            ),
            "{loan}"
        );
        assert_eq!(
            clause(&all, "Pembayaran kembali"),
            format!(
                "Penerima pinjaman membayar {} pada 11 Des 2026, dalam satu kali pembayaran. Pembayaran dialokasikan \
                 lebih dulu ke biaya dan denda, lalu bunga, lalu pokok.",
                format_money(kfs.total_repayable, kfs.currency)
            )
        );
        assert_eq!(
            format_money(kfs.total_repayable, kfs.currency),
            "Rp\u{a0}1.028.000"
        );
        assert_eq!(
            clause(&all, "Keterlambatan"),
            format!(
                "Untuk cicilan yang terlambat: Rp\u{a0}1.000 per hari, paling lama 90 hari. Denda tidak pernah \
                 berbunga dan tidak pernah melebihi {} selama pinjaman.",
                format_money(kfs.max_late_charges, kfs.currency)
            )
        );
        assert_eq!(
            clause(&all, "Perpanjangan jatuh tempo"),
            "Tanggal jatuh tempo dapat digeser 7 hari, paling banyak 2 kali selama pinjaman, dengan biaya \
             Rp\u{a0}10.000 (1% dari jumlah pinjaman) setiap kali, dibayar saat digeser. Tidak ada bunga tambahan \
             untuk hari-hari tambahan itu."
        );
        assert!(
            clause(&all, "Biaya pinjaman")
                .contains("Biaya tahunan total (APR), termasuk semua biaya, adalah ")
        );
        assert!(clause(&all, "Biaya pinjaman").ends_with(&format!(
            "{}.",
            i18n::format_apr(Lang::Id, kfs.apr.basis_points())
        )));
        assert!(i18n::format_apr(Lang::Id, kfs.apr.basis_points()).contains(','));
        assert!(
            clause(&all, "Persetujuan")
                .starts_with("Disetujui secara elektronik pada 27 Nov 2026 ")
        );
        assert!(has_clause(&all, "Tidak ada biaya lain"));
    }

    #[test]
    fn one_installment_with_both_late_charges_and_no_extension_in_english() {
        let mut p = product("in-salary-advance.toml");
        p.extension = None;
        let kfs = kfs_of(&p, 1_000_000, "30d");
        let all = clauses(&kfs, Lang::En);
        reads_as_people_write(&all);
        assert!(
            clause(&all, "The loan").starts_with(
                "The lender lends ₹10,000 (Salary Advance), repaid in one payment, 30 days after the payout. Fees: ₹"
            ),
            "{all:#?}"
        );
        assert_eq!(
            clause(&all, "Repayment"),
            format!(
                "The borrower repays {} on 27 Dec 2026, in one payment. Payments go first to fees and late charges, \
                 then interest, then principal.",
                format_money(kfs.total_repayable, kfs.currency)
            )
        );
        assert_eq!(format_money(kfs.total_repayable, kfs.currency), "₹10,300");
        assert!(
            clause(&all, "Late payment").starts_with(
                "For an installment paid late: a charge of ₹300 once, plus ₹20 a day for at most 30 days. "
            ),
            "{all:#?}"
        );
        assert!(!has_clause(&all, "Moving a due date"));
        // And in Indonesian: the same loan, the same clauses.
        let id = clauses(&kfs, Lang::Id);
        reads_as_people_write(&id);
        assert!(
            clause(&id, "Keterlambatan").starts_with(
                "Untuk cicilan yang terlambat: denda ₹300 satu kali, ditambah ₹20 per hari, paling lama 30 hari. "
            ),
            "{id:#?}"
        );
        assert!(
            clause(&id, "Pinjaman").contains("satu kali pembayaran, 30 hari setelah pencairan")
        );
    }

    #[test]
    fn monthly_installments_are_named_monthly() {
        let kfs = kfs_of(&product("in-flexi-6m.toml"), 2_000_000, "m6");
        assert_eq!(schedule_words(&kfs, Lang::En), "6 monthly installments");
        assert_eq!(schedule_words(&kfs, Lang::Id), "6 cicilan bulanan");
        let all = clauses(&kfs, Lang::En);
        reads_as_people_write(&all);
        // Two fees: listed as a sentence lists them.
        assert!(
            clause(&all, "The loan").contains(": Processing fee ₹")
                && clause(&all, "The loan").contains(" and Documentation charge ₹"),
            "{all:#?}"
        );
    }
}
