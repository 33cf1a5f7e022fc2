//! How long the server spends pricing one loan: the full Key Fact Statement (quote, caps, seal)
//! of a 12-installment monthly loan, and the APR search alone, which is most of it.
//!
//! Run with `cargo bench -p kilat-domain --bench kfs`.

use criterion::{Criterion, criterion_group, criterion_main};
use kilat_domain::{
    AmountRange, CapTable, FeeRule, GrievanceOfficer, Interest, InterestMethod, KeyFactStatement,
    LateCharge, Lender, Market, Money, Period, Product, Rate, RateBasis, Rounding, Term, apr,
    quote_with_caps,
};
use std::hint::black_box;
use time::Date;
use time::macros::date;

const DISBURSED: Date = date!(2026 - 11 - 22);

/// India's demo EMI product (`server/products/in-flexi-6m.toml`): 24% a year on a reducing
/// balance, a 2% processing fee and a ₹150 documentation charge (both with GST) deducted at disbursal.
fn india_emi() -> Product {
    Product {
        code: "in-flexi-6m".into(),
        name: "Flexi EMI".into(),
        market: Market::India,
        amount: AmountRange {
            min: Money::from_major(10_000),
            max: Money::from_major(80_000),
            step: Money::from_major(1_000),
        },
        interest: Interest {
            rate: Rate::from_bp(2_400),
            per: RateBasis::Year,
            method: InterestMethod::Reducing,
        },
        rounding: Rounding::Whole,
        terms: vec![Term {
            code: "m12".into(),
            period: Period::Monthly,
            installments: 12,
        }],
        fees: vec![
            FeeRule {
                name: "Processing fee".into(),
                percent: Rate::from_bp(200),
                fixed: Money::ZERO,
            },
            FeeRule {
                name: "Documentation charge".into(),
                percent: Rate::ZERO,
                fixed: Money::from_major(150),
            },
        ],
        fees_deducted_at_disbursal: true,
        late_charge: LateCharge {
            flat: Money::from_major(500),
            per_day: Money::ZERO,
            max_days: 0,
        },
        extension: None,
        cooling_off_days: 3,
    }
}

/// An Indonesian monthly product at 0.1% a day flat with a 3% fee, so OJK's caps are checked too
/// (a 12-month tenor falls under the 0.2%-a-day cap for 6 months and longer).
fn indonesia_monthly() -> Product {
    Product {
        code: "id-cicil-12".into(),
        name: "Kilat Cicil 12".into(),
        market: Market::Indonesia,
        amount: AmountRange {
            min: Money::from_major(2_000_000),
            max: Money::from_major(15_000_000),
            step: Money::from_major(500_000),
        },
        interest: Interest {
            rate: Rate::from_bp(10),
            per: RateBasis::Day,
            method: InterestMethod::Flat,
        },
        rounding: Rounding::Whole,
        terms: vec![Term {
            code: "m12".into(),
            period: Period::Monthly,
            installments: 12,
        }],
        fees: vec![FeeRule {
            name: "Biaya layanan".into(),
            percent: Rate::from_bp(300),
            fixed: Money::ZERO,
        }],
        fees_deducted_at_disbursal: true,
        late_charge: LateCharge {
            flat: Money::ZERO,
            per_day: Money::from_major(2_000),
            max_days: 90,
        },
        extension: None,
        cooling_off_days: 3,
    }
}

fn lender() -> Lender {
    Lender {
        name: "Kilat Finance Private Limited (NBFC)".into(),
        licence: "Registered with the Reserve Bank of India as an NBFC, Certificate of Registration No. N-00.00000 (example)".into(),
        grievance_officer: GrievanceOfficer {
            name: "Priya Raman".into(),
            email: "grievance@kilat.example".into(),
            phone: "+91 80 4000 1299".into(),
        },
    }
}

fn full_kfs(
    product: &Product,
    amount: Money,
    caps: &CapTable,
    lender: &Lender,
) -> KeyFactStatement {
    let q = quote_with_caps(product, amount, "m12", DISBURSED, caps).expect("the loan is lawful");
    KeyFactStatement::new(&q, lender).expect("the statement seals")
}

fn bench_kfs(c: &mut Criterion) {
    let caps = CapTable::ojk_consumer();
    let lender = lender();
    let india = india_emi();
    let indonesia = indonesia_monthly();
    let rupees = Money::from_major(50_000);
    let rupiah = Money::from_major(10_000_000);

    let mut group = c.benchmark_group("kfs_12_monthly");
    group.bench_function("india_full_kfs", |b| {
        b.iter(|| full_kfs(black_box(&india), black_box(rupees), &caps, &lender))
    });
    group.bench_function("indonesia_full_kfs", |b| {
        b.iter(|| full_kfs(black_box(&indonesia), black_box(rupiah), &caps, &lender))
    });

    let kfs = full_kfs(&india, rupees, &caps, &lender);
    let payments: Vec<Money> = kfs.installments.iter().map(|i| i.amount).collect();
    group.bench_function("india_apr_only", |b| {
        b.iter(|| {
            apr(
                black_box(kfs.net_disbursed),
                black_box(&payments),
                Period::Monthly,
            )
            .expect("a rate of return exists")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_kfs);
criterion_main!(benches);
