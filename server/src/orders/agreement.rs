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
    let Some(frozen) = order.agreement(&s.secrets)? else {
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

/// Renders the agreement of an accepted KFS. The clauses' texts are in the message catalogs (`agreement.*`).
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
    let installments = kfs
        .installments
        .iter()
        .map(|i| format!("{}. {}: {}", i.number, i.due_date, m(i.amount)))
        .collect::<Vec<_>>()
        .join("; ");
    let fees = if kfs.fees.is_empty() {
        t("agreement.no_fees")
    } else {
        kfs.fees
            .iter()
            .map(|fee| format!("{} {}", fee.name, m(fee.total)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fees_when = t(if kfs.fees_deducted_at_disbursal {
        "agreement.fees_deducted"
    } else {
        "agreement.fees_with_installments"
    });
    let accepted = time::OffsetDateTime::from_unix_timestamp(accepted_at / 1000)
        .map(|d| d.date().to_string())
        .unwrap_or_default();
    let reference = &kfs.content_hash[..kfs.content_hash.len().min(12)];
    // The APR in the language's numbers: a decimal comma in Indonesian (the statement keeps `17.07%`).
    let apr = match lang {
        Lang::En => kfs.apr_display.clone(),
        Lang::Id => kfs.apr_display.replace('.', ","),
    };
    let clause = |heading: &str, key: &str, args: &[(&str, &str)]| Clause {
        heading: t(heading),
        text: f(key, args),
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
                ("term", &kfs.term_code),
                ("total_fees", &m(kfs.total_fees)),
                ("fees_when", &fees_when),
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
        clause(
            "agreement.repayment_heading",
            "agreement.repayment",
            &[
                ("count", &kfs.installments.len().to_string()),
                ("installments", &installments),
            ],
        ),
        clause(
            "agreement.late_heading",
            "agreement.late",
            &[
                ("flat", &m(kfs.late_charge.flat)),
                ("per_day", &m(kfs.late_charge.per_day)),
                ("max_days", &kfs.late_charge.max_days.to_string()),
                ("max_total", &m(kfs.max_late_charges)),
            ],
        ),
        clause(
            "agreement.cooling_off_heading",
            "agreement.cooling_off",
            &[("days", &kfs.cooling_off_days.to_string())],
        ),
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
    ];
    // After cooling-off. Statements sealed before version 3 state no prepayment terms, and their agreement none.
    if !kfs.prepayment.is_empty() {
        clauses.insert(
            6,
            clause("agreement.prepayment_heading", "agreement.prepayment", &[]),
        );
    }
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
