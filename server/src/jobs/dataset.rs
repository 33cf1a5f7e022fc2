//! Development only: a lending book at scale (`kilat dev seed --borrowers N --orders M`, issue 20 item 1) for the
//! console's and the borrower's benchmarks (`scripts/bench-console.sh`, docs/PERFORMANCE.md).
//!
//! Borrowers are real ones as far as every reader can tell: the phone sealed to the borrower (and its keyed hash and
//! masked form), the five certification steps sealed to borrower and step, the keyed-hash fingerprints of the PAN/NIK,
//! phones and bank account. Each value is sealed on its own (the binding makes a sealed value unusable on another
//! row, so a pool of sealed values cannot be shared), on every core, a chunk of borrowers at a time. About one
//! borrower in a thousand shares the PAN/NIK of the one before (a duplicate the review finds).
//!
//! Orders are made by the database (`store::seed`): one per borrower is that borrower's latest (5% in review, 2%
//! approved and waiting for the payout, 40% paid out and current, 13% overdue — spread over 2 to about 130 days past
//! due, every bucket — 20% repaid, 15% rejected, 5% cancelled), the rest are older, closed orders (60% repaid, 30%
//! rejected, 10% cancelled). Each market's orders copy one accepted KFS (India: in-flexi-6m, ₹20,000 over six months;
//! Indonesia: id-kilat-cicil, Rp 5,000,000 over three months); each loan carries the plan and ledger of its payout
//! date (computed once per market and date by the domain crate), a payout, and its arrears date; a repaid loan's
//! ledger ends with the repayment that closed it. One open loan in fifty has a UTR payment waiting for finance.
//! Not written: late charges (the overdue job posts them on its next run), order timelines other than the approval,
//! complaints.

use std::time::Instant;

use kilat_domain::{Code, Market, Money, Plan, allocate_repayment, quote_with_caps, replay};
use time::{Date, Duration};

use crate::certification::{
    BankInfo, BaseInfo, ExtendedInfo, JobInfo, PersonalInfo, StepData, fingerprints,
};
use crate::infra::crypto::{Binding, Secrets};
use crate::services::Services;
use crate::store::loans::date_code;
use crate::store::new_id;
use crate::store::seed::{SeedBorrower, SeedEntry, SeedMix, SeedPlan, SeedStep, SeedTemplate};

/// Borrowers sealed and written per transaction.
const BORROWER_CHUNK: usize = 10_000;
/// Ages of the template plans: a loan paid out up to two years ago.
const MAX_DAYS_BACK: i64 = 730;

/// What a run wrote, and how long each part took.
#[derive(Debug, Default)]
pub struct Seeded {
    pub borrowers: usize,
    pub borrowers_secs: f64,
    pub orders: usize,
    pub orders_secs: f64,
    /// Rows per table of the set-based part.
    pub rows: Vec<(&'static str, u64)>,
}

/// The product, amount and term every order of a market copies.
fn template_of(market: Market) -> (&'static str, i64, &'static str) {
    match market {
        Market::India => ("in-flexi-6m", 2_000_000, "m6"),
        Market::Indonesia => ("id-kilat-cicil", 500_000_000, "m3"),
    }
}

/// Borrower `b`'s market: three in five Indian (the same rule as the SQL of `store::seed`).
fn market_of(b: usize) -> Market {
    if b % 5 < 3 {
        Market::India
    } else {
        Market::Indonesia
    }
}

const FIRST_NAMES_IN: [&str; 8] = [
    "Asha", "Ravi", "Priya", "Arjun", "Meena", "Vikram", "Sunita", "Rahul",
];
const LAST_NAMES_IN: [&str; 8] = [
    "Verma", "Sharma", "Iyer", "Reddy", "Nair", "Gupta", "Patel", "Rao",
];
const FIRST_NAMES_ID: [&str; 8] = [
    "Budi", "Siti", "Andi", "Dewi", "Agus", "Rina", "Joko", "Putri",
];
const LAST_NAMES_ID: [&str; 8] = [
    "Santoso", "Aminah", "Wijaya", "Lestari", "Pratama", "Hidayat", "Saputra", "Kusuma",
];

/// Three capital letters numbering `n` (base 26).
fn letters(n: usize) -> String {
    let a = |k: usize| char::from(b'A' + u8::try_from(k % 26).unwrap_or(0));
    [a(n / 676), a(n / 26), a(n)].iter().collect()
}

/// The certification of borrower `b` (`id_of` is the borrower whose PAN/NIK it carries: itself, or the one before
/// for a duplicate).
fn steps_of(b: usize, market: Market) -> [StepData; 5] {
    let id_of = if b % 1000 == 999 { b - 1 } else { b };
    let name = |first: &[&str; 8], last: &[&str; 8], k: usize| {
        format!("{} {}", first[k % 8], last[(k / 8) % 8])
    };
    match market {
        Market::India => [
            StepData::Base(BaseInfo {
                full_name: name(&FIRST_NAMES_IN, &LAST_NAMES_IN, b),
                date_of_birth: format!("19{}-{:02}-{:02}", 70 + b % 30, 1 + b % 12, 1 + b % 28),
                gender: if b.is_multiple_of(2) {
                    "female"
                } else {
                    "male"
                }
                .to_owned(),
                id_number: format!("{}PK{:04}Z", letters(id_of / 10_000), id_of % 10_000),
            }),
            StepData::Personal(PersonalInfo {
                education: "graduate".into(),
                marital_status: if b.is_multiple_of(3) {
                    "married"
                } else {
                    "single"
                }
                .into(),
                residence_type: "rented".into(),
                region_code: "MH".into(),
                city_code: "MH-MUM".into(),
                address: format!("{} Hill Road, Bandra West", 1 + b % 200),
                postal_code: "400050".into(),
            }),
            StepData::Job(JobInfo {
                employment_type: "salaried_private".into(),
                employer_name: "Infosys".into(),
                income: 3_000_000 + i64::try_from(b % 50).unwrap_or(0) * 100_000,
                pay_day: 1,
            }),
            StepData::Extended(ExtendedInfo {
                contact1_name: name(&FIRST_NAMES_IN, &LAST_NAMES_IN, b + 3),
                contact1_relation: "parent".into(),
                contact1_phone: format!("+918{b:09}"),
                contact2_name: name(&FIRST_NAMES_IN, &LAST_NAMES_IN, b + 5),
                contact2_relation: "friend".into(),
                contact2_phone: format!("+919{b:09}"),
                consent: true,
            }),
            StepData::Bank(BankInfo {
                bank_code: "HDFC".into(),
                account_number: format!("50{b:012}"),
                ifsc: Some("HDFC0001234".into()),
            }),
        ],
        Market::Indonesia => [
            StepData::Base(BaseInfo {
                full_name: name(&FIRST_NAMES_ID, &LAST_NAMES_ID, b),
                date_of_birth: format!("19{}-{:02}-{:02}", 70 + b % 30, 1 + b % 12, 1 + b % 28),
                gender: if b.is_multiple_of(2) {
                    "female"
                } else {
                    "male"
                }
                .to_owned(),
                id_number: format!("3171{id_of:012}"),
            }),
            StepData::Personal(PersonalInfo {
                education: "graduate".into(),
                marital_status: "married".into(),
                residence_type: "owned".into(),
                region_code: "JK".into(),
                city_code: "JK-JKS".into(),
                address: format!("Jl. Sudirman No. {}", 1 + b % 200),
                postal_code: "12190".into(),
            }),
            StepData::Job(JobInfo {
                employment_type: "salaried_private".into(),
                employer_name: "PT Maju".into(),
                income: 9_000_000_000,
                pay_day: 25,
            }),
            StepData::Extended(ExtendedInfo {
                contact1_name: name(&FIRST_NAMES_ID, &LAST_NAMES_ID, b + 3),
                contact1_relation: "spouse".into(),
                contact1_phone: format!("+62813{b:08}"),
                contact2_name: name(&FIRST_NAMES_ID, &LAST_NAMES_ID, b + 5),
                contact2_relation: "sibling".into(),
                contact2_phone: format!("+62814{b:08}"),
                consent: true,
            }),
            StepData::Bank(BankInfo {
                bank_code: "014".into(),
                account_number: format!("7{b:09}"),
                ifsc: None,
            }),
        ],
    }
}

/// A borrower `id` of `market` with its own phone (number `number` of the seeds' range: `+91 7…`, `+62 812…`),
/// sealed to it, its keyed hash and masked form, and the phone's fingerprint; no certification yet.
pub fn phone_borrower(
    secrets: &Secrets,
    id: String,
    market: Market,
    number: usize,
    now: i64,
) -> anyhow::Result<SeedBorrower> {
    let e164 = match market {
        Market::India => format!("+917{:09}", number % 1_000_000_000),
        Market::Indonesia => format!("+62812{:08}", number % 100_000_000),
    };
    let phone = kilat_domain::Phone::parse(market, &e164)
        .map_err(|e| anyhow::anyhow!("seed phone {e164}: {e}"))?;
    let phone_enc = secrets.encrypt(phone.e164(), Binding::BorrowerPhone { borrower_id: &id });
    let print = fingerprints::own_phone(secrets, phone.e164());
    Ok(SeedBorrower {
        phone_hash: secrets.mac("phone", phone.e164()),
        phone_masked: phone.masked(),
        market: market.code(),
        created_at: now,
        id,
        phone_enc,
        steps: Vec::new(),
        fingerprints: vec![(print.field, print.kind, print.hash)],
    })
}

/// Borrower `b`, sealed: id `{prefix}b{b:09}`, phone number `phones + b`, certified.
fn borrower(
    secrets: &Secrets,
    prefix: &str,
    b: usize,
    phones: usize,
    now: i64,
) -> anyhow::Result<SeedBorrower> {
    let market = market_of(b);
    let id = format!("{prefix}b{b:09}");
    let created_at = now - i64::try_from(b % 400)? * 86_400_000;
    let mut out = phone_borrower(secrets, id, market, phones + b, created_at)?;
    let id = out.id.as_str();
    let mut steps = Vec::with_capacity(5);
    let mut prints = Vec::with_capacity(5);
    for data in steps_of(b, market) {
        let step = data.step().as_str();
        let json = serde_json::to_string(&data)?;
        steps.push(SeedStep {
            step,
            data_enc: secrets.encrypt(
                &json,
                Binding::CertificationStep {
                    borrower_id: id,
                    step,
                },
            ),
            income: crate::certification::income_verdict_of(market, &data),
        });
        prints.extend(
            fingerprints::of_step(secrets, &data)
                .into_iter()
                .map(|f| (f.field, f.kind, f.hash)),
        );
    }
    out.steps = steps;
    out.fingerprints.extend(prints);
    Ok(out)
}

/// Makes borrowers `range` with `make` on every core.
pub fn on_every_core(
    range: std::ops::Range<usize>,
    make: &(dyn Fn(usize) -> anyhow::Result<SeedBorrower> + Sync),
) -> anyhow::Result<Vec<SeedBorrower>> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let per = range.len().div_ceil(threads).max(1);
    let parts: Vec<std::ops::Range<usize>> = (0..threads)
        .map(|t| {
            let start = range.start + t * per;
            start.min(range.end)..(start + per).min(range.end)
        })
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.map(make).collect::<anyhow::Result<Vec<_>>>()))
            .collect();
        let mut out = Vec::with_capacity(range.len());
        for h in handles {
            out.extend(
                h.join()
                    .map_err(|_| anyhow::anyhow!("a sealing thread panicked"))??,
            );
        }
        Ok(out)
    })
}

/// The template plans and ledgers of a market: a loan paid out `days_back` days before `today`, for every age.
fn plans_of(
    s: &Services,
    product: &kilat_domain::Product,
    today: Date,
) -> anyhow::Result<(Vec<SeedPlan>, Vec<SeedEntry>)> {
    let market = product.market;
    let (_, amount, term) = template_of(market);
    let mut plans = Vec::new();
    let mut entries = Vec::new();
    let market_code = market.code();
    for days_back in 0..=MAX_DAYS_BACK {
        let payout = today - Duration::days(days_back);
        let quote = quote_with_caps(product, Money::from_minor(amount), term, payout, &s.caps)
            .map_err(|e| anyhow::anyhow!("quoting the seed loan: {e}"))?;
        let plan = Plan::at_payout(&quote, payout).map_err(|e| anyhow::anyhow!("{e}"))?;
        let opening = plan.opening_entries();
        let balances = replay(&plan, &opening).map_err(|e| anyhow::anyhow!("{e}"))?;
        let first_due = crate::ledger::arrears_date(&balances)
            .ok_or_else(|| anyhow::anyhow!("a seed plan without installments"))?;
        let first_total = balances
            .installments
            .first()
            .map(|i| i.outstanding.total())
            .transpose()
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .map_or(0, Money::minor);
        let last_due = balances
            .installments
            .iter()
            .map(|i| i.due_date)
            .max()
            .unwrap_or(first_due)
            .min(today);
        let owed = balances
            .outstanding
            .total()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let (repayment, _) =
            allocate_repayment(&balances, owed, last_due).map_err(|e| anyhow::anyhow!("{e}"))?;
        let repaid_at = (last_due.midnight().assume_utc().unix_timestamp() + 12 * 3600) * 1000;
        let seq_of_repayment = i64::try_from(opening.len())?;
        for (seq, entry) in opening
            .iter()
            .chain(std::iter::once(&repayment))
            .enumerate()
        {
            let seq = i64::try_from(seq)?;
            entries.push(SeedEntry {
                market: market_code,
                days_back,
                seq,
                kind: entry.kind.code(),
                on_date: date_code(entry.on),
                cash: entry.cash.minor(),
                excess: entry.excess.minor(),
                refunded: entry.refunded.minor(),
                repaid_only: seq == seq_of_repayment,
                lines: entry
                    .lines
                    .iter()
                    .map(|l| {
                        [
                            i64::from(l.installment),
                            l.due.late_charges.minor(),
                            l.due.fees.minor(),
                            l.due.interest.minor(),
                            l.due.principal.minor(),
                            l.paid.late_charges.minor(),
                            l.paid.fees.minor(),
                            l.paid.interest.minor(),
                            l.paid.principal.minor(),
                        ]
                    })
                    .collect(),
            });
        }
        plans.push(SeedPlan {
            market: market_code,
            days_back,
            payout_date: date_code(payout),
            plan_json: serde_json::to_string(&plan)?,
            first_due: date_code(first_due),
            first_total,
            repaid_at,
            repaid_cash: repayment.cash.minor(),
        });
    }
    Ok((plans, entries))
}

/// Writes `borrowers` borrowers and `orders` orders (at most `borrowers` of them open) in batches of `batch` orders,
/// printing progress to stderr.
pub async fn seed(
    s: &Services,
    catalog: &crate::catalog::Catalog,
    borrowers: usize,
    orders: usize,
    batch: usize,
) -> anyhow::Result<Seeded> {
    anyhow::ensure!(borrowers > 0, "--borrowers must be at least 1");
    anyhow::ensure!(batch > 0, "--batch must be at least 1");
    let mut out = Seeded::default();
    let tag = new_id()[..6].to_ascii_lowercase();
    let prefix = format!("sd{tag}-");
    let order_prefix = format!("KL-SD{}-", tag.to_ascii_uppercase());
    let now = s.clock.now_ms();

    // Borrowers: sealed on every core, written a chunk per transaction. Phone numbers continue after the borrowers
    // already there, so a second run does not collide with the first.
    let phones = usize::try_from(s.db.borrower_count().await?)?;
    let started = Instant::now();
    let mut done = 0;
    while done < borrowers {
        let end = (done + BORROWER_CHUNK).min(borrowers);
        let secrets = s.secrets.clone();
        let prefix_owned = prefix.clone();
        let chunk = tokio::task::spawn_blocking(move || {
            on_every_core(done..end, &|b| {
                borrower(&secrets, &prefix_owned, b, phones, now)
            })
        })
        .await??;
        let mut tx = s.db.begin().await?;
        tx.insert_seed_borrowers(&chunk).await?;
        tx.commit().await?;
        done = end;
        eprintln!(
            "borrowers: {done}/{borrowers} ({:.0}/s)",
            done as f64 / started.elapsed().as_secs_f64()
        );
    }
    out.borrowers = borrowers;
    out.borrowers_secs = started.elapsed().as_secs_f64();

    // Orders: the templates, then staging every order and writing them a batch at a time, oldest first.
    let started = Instant::now();
    s.db.create_seed_tables().await?;
    let mut kfs_jsons = Vec::new();
    let mut all_plans = Vec::new();
    let mut all_entries = Vec::new();
    for market in [Market::India, Market::Indonesia] {
        let (code, amount, term) = template_of(market);
        let product = catalog
            .get(market, code)
            .ok_or_else(|| anyhow::anyhow!("no product {code} in {}", market.code()))?;
        let today = s.clock.today(market);
        let kfs = crate::catalog::key_fact_statement(
            &s.caps,
            &product,
            Money::from_minor(amount),
            term,
            today,
            &s.site.lender(market),
        )
        .map_err(|e| anyhow::anyhow!("the seed KFS: {e:?}"))?;
        kfs_jsons.push((market, serde_json::to_string(&kfs)?, kfs, product.version));
        let (plans, entries) = plans_of(s, &product, today)?;
        all_plans.extend(plans);
        all_entries.extend(entries);
    }
    let templates: Vec<SeedTemplate<'_>> = kfs_jsons
        .iter()
        .map(|(market, json, kfs, version)| SeedTemplate {
            market: market.code(),
            product_code: &kfs.product_code,
            product_name: &kfs.product_name,
            product_version: *version,
            term_code: &kfs.term_code,
            currency: kfs.currency.code(),
            amount: kfs.sanctioned_amount.minor(),
            net_disbursed: kfs.net_disbursed.minor(),
            total_repayable: kfs.total_repayable.minor(),
            apr: kfs.apr.0,
            apr_display: &kfs.apr_display,
            kfs_json: json,
            kfs_hash: &kfs.content_hash,
        })
        .collect();
    s.db.insert_seed_templates(&templates, &all_plans, &all_entries)
        .await?;
    let mix = SeedMix {
        prefix: &prefix,
        order_prefix: &order_prefix,
        borrowers: i64::try_from(borrowers)?,
        now,
    };
    // Every order staged first, then numbered in the order they were created and written in that order, as a live
    // book's rows are (`Db::rank_seed_orders`).
    for first in (0..orders).step_by(batch) {
        let last = (first + batch).min(orders) - 1;
        s.db.stage_seed_orders(&mix, i64::try_from(first)?, i64::try_from(last)?)
            .await?;
    }
    s.db.rank_seed_orders().await?;
    let mut rows: Vec<(&'static str, u64)> = Vec::new();
    for first in (0..orders).step_by(batch) {
        let last = (first + batch).min(orders) - 1;
        let written =
            s.db.write_seed_orders(&mix, i64::try_from(first)?, i64::try_from(last)?)
                .await?;
        for (table, n) in written {
            match rows.iter_mut().find(|(t, _)| *t == table) {
                Some(slot) => slot.1 += n,
                None => rows.push((table, n)),
            }
        }
        let done = last + 1;
        eprintln!(
            "orders: {done}/{orders} ({:.0}/s)",
            done as f64 / started.elapsed().as_secs_f64()
        );
    }
    s.db.drop_seed_tables().await?;
    // The orders and positions were written in bulk, without the book's moves: the book is counted from them.
    let mut tx = s.db.begin().await?;
    tx.count_book().await?;
    tx.commit().await?;
    s.db.analyze().await?;
    out.orders = orders;
    out.orders_secs = started.elapsed().as_secs_f64();
    out.rows = rows;
    Ok(out)
}
