use super::*;
use crate::codes::Code;
use crate::error::CapKind;
use crate::product::{
    AmountRange, ExtensionTerms, FeeRule, Interest, InterestMethod, LateCharge, Product, RateBasis,
    Rounding,
};
use crate::quote::quote;
use crate::rate::Rate;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rstest::rstest;
use time::macros::date;

const QUOTED: Date = date!(2026 - 11 - 01);
const PAYOUT: Date = date!(2026 - 11 - 22);

/// ₹10,000 at 0.1% a day flat, three fortnightly installments, 2% fee (+GST) deducted, ₹300 then ₹20 a day
/// for 30 days late, a 7-day extension for 3% (+GST), at most two.
pub(crate) fn indian(installments: u32) -> Product {
    Product {
        code: "in-test".into(),
        name: "Test".into(),
        market: Market::India,
        amount: AmountRange {
            min: Money::from_major(2_000),
            max: Money::from_major(80_000),
            step: Money::from_major(500),
        },
        interest: Interest {
            rate: Rate::from_bp(10),
            per: RateBasis::Day,
            method: InterestMethod::Flat,
        },
        rounding: Rounding::Minor,
        terms: vec![Term {
            code: "14d".into(),
            period: Period::Days(14),
            installments,
        }],
        fees: vec![FeeRule {
            name: "Processing fee".into(),
            percent: Rate::from_bp(200),
            fixed: Money::ZERO,
        }],
        fees_deducted_at_disbursal: true,
        late_charge: LateCharge {
            flat: Money::from_major(300),
            per_day: Money::from_major(20),
            max_days: 30,
        },
        extension: Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::from_bp(300),
            fee_fixed: Money::ZERO,
            max_extensions: 2,
        }),
        cooling_off_days: 3,
    }
}

pub(crate) fn plan_of(product: &Product, amount: Money, term: &str) -> Plan {
    Plan::at_payout(&quote(product, amount, term, QUOTED).unwrap(), PAYOUT).unwrap()
}

pub(crate) fn indian_plan() -> Plan {
    plan_of(&indian(3), Money::from_major(10_000), "14d")
}

fn opened(plan: &Plan) -> Vec<LedgerEntry> {
    plan.opening_entries()
}

fn post(plan: &Plan, ledger: &mut Vec<LedgerEntry>, entry: LedgerEntry) -> LoanBalances {
    ledger.push(entry);
    let b = replay(plan, ledger).unwrap();
    assert_holds(&b);
    b
}

pub(crate) fn assert_holds(b: &LoanBalances) {
    for i in &b.installments {
        assert_eq!(i.paid.plus(i.outstanding).unwrap(), i.due);
        assert!(!i.outstanding.has_negative() && !i.paid.has_negative());
    }
    assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
    assert_eq!(
        b.cash_in.checked_add(b.refunded).unwrap(),
        b.paid.total().unwrap().checked_add(b.excess).unwrap()
    );
}

fn money(minor: i64) -> Money {
    Money::from_minor(minor)
}

#[test]
fn the_plan_moves_the_schedule_to_the_payout_date_with_the_same_amounts_and_apr() {
    let accepted = quote(&indian(3), Money::from_major(10_000), "14d", QUOTED).unwrap();
    let plan = Plan::at_payout(&accepted, PAYOUT).unwrap();
    let dates: Vec<Date> = plan.quote.installments.iter().map(|i| i.due_date).collect();
    assert_eq!(
        dates,
        vec![
            date!(2026 - 12 - 06),
            date!(2026 - 12 - 20),
            date!(2027 - 01 - 03)
        ]
    );
    for (moved, was) in plan.quote.installments.iter().zip(&accepted.installments) {
        assert_eq!((moved.amount, moved.principal), (was.amount, was.principal));
    }
    let payments: Vec<Money> = plan.quote.installments.iter().map(|i| i.amount).collect();
    let apr = crate::apr::apr(plan.quote.net_disbursed, &payments, Period::Days(14));
    assert_eq!(apr, Ok(accepted.apr));
    // A quote made on the payout day would have given the same schedule.
    let fresh = quote(&indian(3), Money::from_major(10_000), "14d", PAYOUT).unwrap();
    assert_eq!(plan.quote.installments, fresh.installments);
}

#[test]
fn monthly_schedules_move_by_calendar_months_from_the_payout() {
    let p = crate::quote::tests::rbi_illustration(Rounding::Minor);
    let plan = plan_of(&p, Money::from_major(20_000), "m24");
    assert_eq!(plan.quote.installments[0].due_date, date!(2026 - 12 - 22));
    assert_eq!(plan.quote.installments[23].due_date, date!(2028 - 11 - 22));
}

#[test]
fn a_plan_from_the_accepted_kfs_equals_the_plan_from_its_quote() {
    let accepted = quote(&indian(3), Money::from_major(10_000), "14d", QUOTED).unwrap();
    let lender = crate::kfs::Lender {
        name: "L".into(),
        licence: String::new(),
        grievance_officer: crate::kfs::GrievanceOfficer {
            name: "G".into(),
            email: "g@example.in".into(),
            phone: "+91".into(),
        },
    };
    let kfs = KeyFactStatement::new(&accepted, &lender).unwrap();
    assert_eq!(
        Plan::from_kfs(&kfs, Period::Days(14), PAYOUT),
        Plan::at_payout(&accepted, PAYOUT)
    );
}

#[test]
fn every_code_round_trips_and_matches_the_api() {
    for kind in EntryKind::ALL {
        assert_eq!(EntryKind::try_from(kind.code().to_owned()), Ok(*kind));
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.code());
    }
    for status in InstallmentStatus::ALL {
        assert_eq!(
            InstallmentStatus::try_from(status.code().to_owned()),
            Ok(*status)
        );
        assert_eq!(serde_json::to_value(status).unwrap(), status.code());
    }
}

#[test]
fn an_entry_serializes_in_camel_case_and_reads_back() {
    let plan = indian_plan();
    let entry = &opened(&plan)[2];
    let json = serde_json::to_value(entry).unwrap();
    assert_eq!(json["kind"], "scheduled");
    assert_eq!(json["on"], "2026-11-22");
    assert_eq!(json["lines"][0]["due"]["lateCharges"], 0);
    let back: LedgerEntry = serde_json::from_value(json).unwrap();
    assert_eq!(&back, entry);
}

#[test]
fn at_payout_everything_scheduled_is_outstanding_and_upcoming() {
    let plan = indian_plan();
    let b = replay(&plan, &opened(&plan)).unwrap();
    assert_eq!(b.entries, 5);
    assert_eq!(b.paid_out, Money::from_minor(976_400));
    assert_eq!(b.fees_kept, Money::from_minor(23_600));
    assert_eq!(b.outstanding.total(), Ok(plan.quote.total_repayable));
    assert_eq!(b.outstanding.principal, Money::from_major(10_000));
    assert!(!b.settled);
    assert!(
        b.statuses(PAYOUT)
            .iter()
            .all(|(_, s)| *s == InstallmentStatus::Upcoming)
    );
}

#[rstest]
#[case(date!(2026 - 12 - 05), InstallmentStatus::Upcoming)]
#[case(date!(2026 - 12 - 06), InstallmentStatus::Due)]
#[case(date!(2026 - 12 - 07), InstallmentStatus::Overdue)]
fn an_installments_status_follows_its_due_date(#[case] on: Date, #[case] want: InstallmentStatus) {
    let plan = indian_plan();
    let b = replay(&plan, &opened(&plan)).unwrap();
    assert_eq!(b.installments[0].status(on), want);
}

/// The journey: payout, a partial repayment, a late charge, an extension, the rest, settled; the replay of the
/// ledger after each step is checked against the balances that step must leave.
#[test]
fn a_journey_replays_to_the_right_balances_after_every_step() {
    let plan = indian_plan();
    let mut ledger = Vec::new();
    let mut b = replay(&plan, &[]).unwrap();
    assert_eq!(b.entries, 0);
    for entry in opened(&plan) {
        b = post(&plan, &mut ledger, entry);
    }
    // Installments: ₹3,333.33 + ₹140 interest, twice, then ₹3,333.34 + ₹140.
    assert_eq!(b.installments[0].due.total(), Ok(money(347_333)));
    assert_eq!(b.outstanding.total(), Ok(money(1_042_000)));

    // 1. ₹2,000 on 1 December pays installment 1's interest, then principal.
    let (pay, excess) =
        allocate_repayment(&b, Money::from_major(2_000), date!(2026 - 12 - 01)).unwrap();
    assert_eq!(excess, Money::ZERO);
    b = post(&plan, &mut ledger, pay);
    assert_eq!(b.installments[0].paid.interest, money(14_000));
    assert_eq!(b.installments[0].paid.principal, money(186_000));
    assert_eq!(b.installments[0].outstanding.total(), Ok(money(147_333)));
    assert_eq!(b.outstanding.total(), Ok(money(842_000)));
    assert_eq!(b.cash_in, Money::from_major(2_000));

    // 2. Overdue on 7 December: the ₹300 flat charge.
    let on = date!(2026 - 12 - 07);
    assert!(!b.is_overdue(date!(2026 - 12 - 06)));
    assert!(b.is_overdue(on));
    assert_eq!(b.installments[0].status(on), InstallmentStatus::Overdue);
    let charges =
        late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
    assert_eq!(charges.len(), 1);
    b = post(&plan, &mut ledger, charges[0].clone());
    assert_eq!(
        b.installments[0].outstanding.late_charges,
        Money::from_major(300)
    );
    assert_eq!(b.outstanding.total(), Ok(money(872_000)));
    // What a `due` payment of installments asks on their date: each one's outstanding, the late charge with it.
    assert_eq!(b.outstanding_of(1, 1), Ok(money(147_333 + 30_000)));
    assert_eq!(
        b.outstanding_of(1, 2),
        Ok(money(147_333 + 30_000 + 347_333))
    );
    assert_eq!(
        b.outstanding_of(4, 9),
        Ok(Money::ZERO),
        "no such installments"
    );

    // 3. An extension on 8 December: ₹300 + ₹54 GST, every due date from installment 1 moves 7 days.
    let on = date!(2026 - 12 - 08);
    let (ext, fee) = extend(&plan, &b, 1, on, &CapTable::ojk_consumer()).unwrap();
    assert_eq!(ext.fee.total, money(35_400));
    b = post(&plan, &mut ledger, fee);
    assert_eq!(b.extensions_granted, 1);
    assert_eq!(b.extension_fees, money(35_400));
    assert_eq!(b.installments[0].due_date, date!(2026 - 12 - 13));
    assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 10));
    assert_eq!(b.schedule(&plan), ext.revised);
    assert_eq!(b.installments[0].status(on), InstallmentStatus::Upcoming);
    assert!(!b.is_overdue(on), "the extension caught the order up");
    assert_eq!(
        b.outstanding.total(),
        Ok(money(872_000)),
        "the fee is paid with the extension"
    );
    assert_eq!(b.cash_in, money(235_400));

    // 4. The rest on 10 December settles the loan; ₹1 more would be excess, refunded.
    let rest = b.outstanding.total().unwrap();
    let (pay, excess) = allocate_repayment(
        &b,
        rest.checked_add(money(100)).unwrap(),
        date!(2026 - 12 - 10),
    )
    .unwrap();
    assert_eq!(excess, money(100));
    b = post(&plan, &mut ledger, pay);
    assert!(b.settled);
    assert_eq!(b.outstanding, Buckets::default());
    assert_eq!(b.excess, money(100));
    assert!(
        b.statuses(date!(2027 - 02 - 01))
            .iter()
            .all(|(_, s)| *s == InstallmentStatus::Paid)
    );
    assert_eq!(b.cost(), Ok(money(23_600 + 42_000 + 35_400 + 30_000)));
    // Nothing more to charge on a settled loan.
    let late = late_charges_due(
        &plan,
        &b,
        &BTreeSet::new(),
        date!(2027 - 03 - 01),
        &CapTable::ojk_consumer(),
    );
    assert_eq!(late, Ok(vec![]));
}

/// Outstanding on installments 1 and 2: (late charges, fees, interest, principal).
#[rstest]
#[case::late_charges_first(50, [[50, 0, 0, 0], [0, 0, 0, 0]], 0)]
#[case::then_fees(150, [[100, 50, 0, 0], [0, 0, 0, 0]], 0)]
#[case::then_interest(350, [[100, 200, 50, 0], [0, 0, 0, 0]], 0)]
#[case::then_principal(1_500, [[100, 200, 300, 900], [0, 0, 0, 0]], 0)]
#[case::oldest_installment_first(1_700, [[100, 200, 300, 1_000], [10, 0, 90, 0]], 0)]
#[case::then_the_next_in_the_same_order(2_000, [[100, 200, 300, 1_000], [10, 0, 300, 90]], 0)]
#[case::excess_is_returned(5_000, [[100, 200, 300, 1_000], [10, 0, 300, 1_000]], 2_090)]
fn a_repayment_pays_the_oldest_installment_first_late_charges_then_fees_then_interest_then_principal(
    #[case] amount: i64,
    #[case] want: [[i64; 4]; 2],
    #[case] excess: i64,
) {
    let plan = indian_plan();
    let mut b = replay(&plan, &opened(&plan)).unwrap();
    b.installments[0].outstanding = Buckets {
        late_charges: money(100),
        fees: money(200),
        interest: money(300),
        principal: money(1_000),
    };
    b.installments[1].outstanding = Buckets {
        late_charges: money(10),
        fees: Money::ZERO,
        interest: money(300),
        principal: money(1_000),
    };
    b.installments[2].outstanding = Buckets::default();
    let (entry, left) = allocate_repayment(&b, money(amount), PAYOUT).unwrap();
    let got: Vec<[i64; 4]> = (1..=2)
        .map(|n| {
            entry
                .lines
                .iter()
                .find(|l| l.installment == n)
                .map_or([0; 4], |l| l.paid.parts().map(Money::minor))
        })
        .collect();
    assert_eq!(got, want.to_vec());
    assert_eq!(left, money(excess));
    assert_eq!(entry.excess, money(excess));
    assert_eq!(entry.cash, money(amount));
}

#[test]
fn a_repayment_of_nothing_or_less_is_refused() {
    let plan = indian_plan();
    let b = replay(&plan, &opened(&plan)).unwrap();
    assert_eq!(
        allocate_repayment(&b, money(-1), PAYOUT),
        Err(Error::NegativeAmount)
    );
    assert!(matches!(
        allocate_repayment(&b, Money::ZERO, PAYOUT),
        Err(Error::InvalidEntry { .. })
    ));
}

/// Runs the overdue job every day from `from` to `to`, paying each charge at once when `pay_each`, and returns
/// the charge posted each day.
fn run_job(
    plan: &Plan,
    ledger: &mut Vec<LedgerEntry>,
    from: Date,
    days: u32,
    verifying: impl Fn(Date) -> BTreeSet<u32>,
    caps: &CapTable,
    pay_each: bool,
) -> Vec<i64> {
    let mut out = Vec::new();
    for d in 0..days {
        let on = crate::calendar::add_days(from, d).unwrap();
        let b = replay(plan, ledger).unwrap();
        let charges = late_charges_due(plan, &b, &verifying(on), on, caps).unwrap();
        let total: i64 = charges
            .iter()
            .map(|c| c.lines[0].due.late_charges.minor())
            .sum();
        ledger.extend(charges);
        let b = replay(plan, ledger).unwrap();
        // Idempotent: a second run for the same date posts nothing.
        assert_eq!(
            late_charges_due(plan, &b, &verifying(on), on, caps),
            Ok(vec![])
        );
        if pay_each && total > 0 {
            let (pay, _) = allocate_repayment(&b, money(total), on).unwrap();
            assert!(
                pay.lines
                    .iter()
                    .all(|l| l.paid.late_charges == l.paid.total().unwrap())
            );
            ledger.push(pay);
        }
        out.push(total);
    }
    out
}

pub(crate) fn one_installment_indian() -> Plan {
    plan_of(&indian(1), Money::from_major(10_000), "14d")
}

#[test]
fn late_charges_are_flat_then_daily_and_stop_at_the_per_installment_maximum() {
    let plan = one_installment_indian();
    let mut ledger = opened(&plan);
    let due = plan.quote.installments[0].due_date;
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        60,
        |_| BTreeSet::new(),
        &CapTable::ojk_consumer(),
        false,
    );
    assert_eq!(daily[0], 0, "nothing on the due date itself");
    assert_eq!(daily[1], 30_000);
    assert_eq!(daily[2], 2_000);
    assert_eq!(daily[31], 2_000);
    assert_eq!(daily[32], 0);
    let b = replay(&plan, &ledger).unwrap();
    assert_eq!(
        b.due.late_charges,
        plan.quote.late_charge.max_per_installment().unwrap()
    );
    assert_eq!(b.due.late_charges, Money::from_major(900));
}

#[test]
fn late_charges_never_compound() {
    let plan = one_installment_indian();
    let due = plan.quote.installments[0].due_date;
    let caps = CapTable::ojk_consumer();
    let mut unpaid = opened(&plan);
    let mut paid = opened(&plan);
    let a = run_job(
        &plan,
        &mut unpaid,
        due,
        40,
        |_| BTreeSet::new(),
        &caps,
        false,
    );
    let b = run_job(&plan, &mut paid, due, 40, |_| BTreeSet::new(), &caps, true);
    assert_eq!(
        a, b,
        "the charge does not depend on earlier charges being owed"
    );
}

#[test]
fn days_spent_verifying_a_utr_are_never_charged() {
    let plan = one_installment_indian();
    let due = plan.quote.installments[0].due_date;
    let mut ledger = opened(&plan);
    let verifying = |on: Date| {
        let day = days_between(due, on);
        if (3..=5).contains(&day) {
            BTreeSet::from([1])
        } else {
            BTreeSet::new()
        }
    };
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        11,
        verifying,
        &CapTable::ojk_consumer(),
        false,
    );
    assert_eq!(
        daily,
        vec![0, 30_000, 2_000, 0, 0, 0, 2_000, 2_000, 2_000, 2_000, 2_000]
    );
    let b = replay(&plan, &ledger).unwrap();
    // Ten days overdue, three of them verifying: seven days charged.
    assert_eq!(b.installments[0].late_charge_days, 7);
    assert_eq!(
        b.due.late_charges,
        plan.quote.late_charge.for_days_overdue(7).unwrap()
    );
}

#[test]
fn a_waived_late_charge_is_not_charged_again() {
    let plan = one_installment_indian();
    let due = plan.quote.installments[0].due_date;
    let mut ledger = opened(&plan);
    run_job(
        &plan,
        &mut ledger,
        due,
        2,
        |_| BTreeSet::new(),
        &CapTable::ojk_consumer(),
        false,
    );
    let seq = ledger.len() as u64 - 1;
    let waiver = reversal(&ledger, seq, ledger[seq as usize].on).unwrap();
    ledger.push(waiver);
    let next = crate::calendar::add_days(due, 2).unwrap();
    let b = replay(&plan, &ledger).unwrap();
    assert_eq!(b.due.late_charges, Money::ZERO);
    let charges =
        late_charges_due(&plan, &b, &BTreeSet::new(), next, &CapTable::ojk_consumer()).unwrap();
    assert_eq!(charges[0].lines[0].due.late_charges, Money::from_major(20));
}

/// Rp1,000,000 for 30 days at 0.1% a day, 1% fee, Rp50,000 flat late charge.
pub(crate) fn indonesian_plan() -> Plan {
    plan_of(
        &crate::quote::tests::indonesian(10, 100),
        Money::from_major(1_000_000),
        "30d",
    )
}

#[test]
fn without_a_flat_charge_the_first_day_overdue_is_free_and_counted_and_the_daily_charge_follows() {
    let mut plan = one_installment_indian();
    plan.quote.late_charge = crate::LateCharge {
        flat: Money::ZERO,
        per_day: Money::from_major(20),
        max_days: 5,
    };
    let due = plan.quote.installments[0].due_date;
    let mut ledger = opened(&plan);
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        10,
        |_| BTreeSet::new(),
        &CapTable::ojk_consumer(),
        false,
    );
    assert_eq!(
        daily,
        vec![0, 0, 2_000, 2_000, 2_000, 2_000, 2_000, 0, 0, 0]
    );
    let b = replay(&plan, &ledger).unwrap();
    assert_eq!(
        b.due.late_charges,
        plan.quote.late_charge.max_per_installment().unwrap()
    );
    // One zero entry only (the free first day); none once the maximum is reached.
    let zero = ledger
        .iter()
        .filter(|e| e.kind == EntryKind::LateCharge && e.lines[0].due.late_charges.minor() == 0)
        .count();
    assert_eq!(zero, 1);
}

/// Counsel lowers the total cost cap below what a loan already costs (the cap table is data): the loan is charged
/// nothing more, and a free first day overdue is still counted with a charge of nothing — never a negative charge,
/// which the ledger refuses (before, it failed the job's whole page, every run).
#[test]
fn a_total_cap_lowered_below_a_loan_s_cost_charges_nothing_more_and_never_less_than_nothing() {
    let mut plan = indonesian_plan();
    plan.quote.late_charge = crate::LateCharge {
        flat: Money::ZERO,
        per_day: Money::from_major(2_000),
        max_days: 5,
    };
    let caps = CapTable {
        total_cost: Rate::from_ppb(RATE_SCALE / 100),
        ..CapTable::ojk_consumer()
    };
    let b = replay(&plan, &opened(&plan)).unwrap();
    assert!(b.cost().unwrap() > caps.total_cost_limit(plan.quote.principal).unwrap());
    let due = plan.quote.installments[0].due_date;
    let mut ledger = opened(&plan);
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        5,
        |_| BTreeSet::new(),
        &caps,
        false,
    );
    assert_eq!(daily, vec![0; 5]);
}

#[test]
fn an_indonesian_late_charge_is_at_most_a_tenth_of_a_percent_a_day_of_what_is_overdue() {
    let plan = indonesian_plan();
    let due = plan.quote.installments[0].due_date;
    let mut ledger = opened(&plan);
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        3,
        |_| BTreeSet::new(),
        &CapTable::ojk_consumer(),
        false,
    );
    // Overdue: Rp1,000,000 + Rp30,000 interest; 0.1% is Rp1,030, well under the Rp50,000 flat charge.
    assert_eq!(daily, vec![0, 103_000, 0]);
}

#[test]
fn an_indonesian_late_charge_before_the_late_charge_cap_took_effect_is_the_products() {
    let product = crate::quote::tests::indonesian(10, 100);
    let accepted = quote(
        &product,
        Money::from_major(1_000_000),
        "30d",
        date!(2025 - 11 - 01),
    )
    .unwrap();
    let plan = Plan::at_payout(&accepted, date!(2025 - 11 - 01)).unwrap();
    let b = replay(&plan, &opened(&plan)).unwrap();
    let on = date!(2025 - 12 - 05);
    let charges =
        late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
    assert_eq!(
        charges[0].lines[0].due.late_charges,
        Money::from_major(50_000)
    );
}

#[test]
fn indonesian_late_charges_stop_at_the_total_cost_cap() {
    let plan = indonesian_plan();
    let due = plan.quote.installments[0].due_date;
    // A table whose total cap is 5% and without a daily late cap: interest 3% + fee 1% leaves 1%.
    let mut caps = CapTable::ojk_consumer();
    caps.total_cost = Rate::from_bp(500);
    caps.late_charge_daily.clear();
    let mut ledger = opened(&plan);
    let daily = run_job(
        &plan,
        &mut ledger,
        due,
        4,
        |_| BTreeSet::new(),
        &caps,
        false,
    );
    assert_eq!(daily, vec![0, 1_000_000, 0, 0]);
    let b = replay(&plan, &ledger).unwrap();
    assert_eq!(
        b.cost(),
        Ok(caps.total_cost_limit(plan.quote.principal).unwrap())
    );
}

#[test]
fn an_indian_loan_is_not_held_to_the_ojk_late_charge_caps() {
    let plan = one_installment_indian();
    let b = replay(&plan, &opened(&plan)).unwrap();
    let on = crate::calendar::add_days(plan.quote.installments[0].due_date, 1).unwrap();
    let mut caps = CapTable::ojk_consumer();
    caps.total_cost = Rate::ZERO;
    let charges = late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps).unwrap();
    assert_eq!(charges[0].lines[0].due.late_charges, Money::from_major(300));
}

#[rstest]
#[case::on_the_payout_day(PAYOUT, 0)]
#[case::seven_days_into_the_first_period(date!(2026 - 11 - 29), 7_000)]
#[case::on_the_first_due_date(date!(2026 - 12 - 06), 14_000)]
#[case::three_days_into_the_second_period(date!(2026 - 12 - 09), 14_000 + 3_000)]
#[case::after_the_last_due_date(date!(2027 - 02 - 01), 42_000)]
fn a_payoff_charges_interest_only_for_the_days_used(#[case] on: Date, #[case] interest: i64) {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    let s = payoff(&plan, &b, on).unwrap();
    assert_eq!(
        s.amount,
        Money::from_major(10_000)
            .checked_add(money(interest))
            .unwrap()
    );
    assert_eq!(s.interest_waived, money(42_000 - interest));
    let b = post(&plan, &mut ledger, s.entry);
    assert!(b.settled);
    assert_eq!(b.closed_by, Some(EntryKind::Payoff));
    assert_eq!(b.paid.interest, money(interest));
}

#[test]
fn a_payoff_credits_interest_paid_in_advance_for_days_not_used() {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    // Installment 1 paid in full on the payout day, its ₹140 of interest included; three days later only
    // ₹30 of it is earned.
    let (pay, _) = allocate_repayment(&b, money(347_333), PAYOUT).unwrap();
    let b = post(&plan, &mut ledger, pay);
    let s = payoff(&plan, &b, date!(2026 - 11 - 25)).unwrap();
    assert_eq!(s.amount, money(1_000_000 - 333_333 + 3_000 - 14_000));
    let b = post(&plan, &mut ledger, s.entry);
    assert!(b.settled);
    assert_eq!(b.paid.interest, money(3_000));
    assert_eq!(b.cash_in, money(1_000_000 + 3_000));
    // What the borrower paid in all: the cash sent and the ₹236 of fees kept from the payout.
    assert_eq!(b.paid_in_all(), Ok(money(1_000_000 + 3_000 + 23_600)));
}

#[test]
fn a_payoff_includes_the_late_charges_posted() {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let on = date!(2026 - 12 - 07);
    let b = replay(&plan, &ledger).unwrap();
    let late =
        late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
    ledger.extend(late);
    let b = replay(&plan, &ledger).unwrap();
    let s = payoff(&plan, &b, on).unwrap();
    // Principal, installment 1's interest, one day of installment 2's, and the ₹300 late charge.
    assert_eq!(s.amount, money(1_000_000 + 14_000 + 1_000 + 30_000));
    assert!(post(&plan, &mut ledger, s.entry).settled);
}

#[test]
fn the_prepayment_rule_is_stated_for_the_kfs() {
    assert!(PREPAYMENT_RULE.contains("without a prepayment charge"));
}

#[rstest]
#[case(PAYOUT, 0)]
#[case(date!(2026 - 11 - 24), 2_000)]
#[case(date!(2026 - 11 - 25), 3_000)]
fn the_cooling_off_exit_settles_for_principal_and_interest_for_the_days_used(
    #[case] on: Date,
    #[case] interest: i64,
) {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    let s = cooling_off_settlement(&plan, &b, on).unwrap();
    let exit = cooling_off_exit(&plan.quote, PAYOUT, on).unwrap();
    assert_eq!(s.amount, exit.amount);
    // ₹10,000 + interest, less the ₹236 of fees kept at payout, credited back.
    assert_eq!(s.amount, money(1_000_000 + interest - 23_600));
    assert_eq!(s.fees_refunded, money(23_600));
    assert_eq!(s.interest_waived, money(42_000 - interest));
    let b = post(&plan, &mut ledger, s.entry);
    assert!(b.settled);
    assert_eq!(b.closed_by, Some(EntryKind::CoolingOffExit));
    assert_eq!(b.fees_kept, Money::ZERO);
    assert_eq!(
        b.cost(),
        Ok(money(interest)),
        "interest for the days used is the whole cost"
    );
    // Paid in all: what was sent back, the fees kept at payout given back.
    assert_eq!(b.paid_in_all(), Ok(s.amount));
}

#[test]
fn the_cooling_off_exit_is_refused_after_the_window_or_once_what_was_repaid_covers_it() {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    assert!(matches!(
        cooling_off_settlement(&plan, &b, date!(2026 - 11 - 26)),
        Err(Error::CoolingOffOver { .. })
    ));
    // All but one paisa repaid: more than the exit asks (principal and two days' interest, fees given back).
    let all_but = b
        .outstanding
        .total()
        .unwrap()
        .checked_sub(money(1))
        .unwrap();
    let (pay, _) = allocate_repayment(&b, all_but, PAYOUT).unwrap();
    let b = post(&plan, &mut ledger, pay);
    assert!(matches!(
        cooling_off_settlement(&plan, &b, date!(2026 - 11 - 24)),
        Err(Error::InvalidEntry { .. })
    ));
}

/// PRODUCT.md §3: the exit is the principal and the interest for the days used, nothing else, whatever was paid before
/// it. A part payment (an installment paid the day after the payout) counts towards the exit, and what it paid for
/// fees or for interest beyond the days used is credited back.
#[rstest]
#[case::fees_deducted_at_payout(true)]
#[case::fees_with_the_first_installment(false)]
fn a_cooling_off_exit_after_a_part_payment_counts_it_and_keeps_only_principal_and_the_days_interest(
    #[case] deducted: bool,
) {
    let product = Product {
        fees_deducted_at_disbursal: deducted,
        ..indian(3)
    };
    let plan = plan_of(&product, Money::from_major(10_000), "14d");
    let caps = CapTable::ojk_consumer();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    let first = b.installments[0].outstanding.total().unwrap();
    let next_day = crate::calendar::add_days(PAYOUT, 1).unwrap();
    let (pay, excess) = allocate_repayment(&b, first, next_day).unwrap();
    assert_eq!(excess, Money::ZERO);
    let b = post(&plan, &mut ledger, pay);
    assert!(!b.installments[0].paid.is_zero());

    let on = crate::calendar::add_days(PAYOUT, 2).unwrap();
    let exit = cooling_off_exit(&plan.quote, PAYOUT, on).unwrap();
    let offer = cooling_off_offer(&plan, &b, on).unwrap();
    let priced = crate::settle::price(
        &plan,
        &b,
        crate::RepaymentChoice::CoolingOff,
        on,
        &caps,
        false,
    )
    .unwrap();
    assert_eq!(offer.repaid, first);
    assert_eq!(offer.amount, exit.amount.checked_sub(first).unwrap());
    assert_eq!(priced.amount, offer.amount);

    let s = cooling_off_settlement(&plan, &b, on).unwrap();
    assert_eq!(s.amount, offer.amount);
    let b = post(&plan, &mut ledger, s.entry);
    assert!(b.settled);
    assert_eq!(b.closed_by, Some(EntryKind::CoolingOffExit));
    // ₹10,000 at 0.1% a day for two days: ₹20, the whole cost; paid in all, what the exit alone asks.
    assert_eq!(b.cost(), Ok(money(2_000)));
    assert_eq!(b.paid_in_all(), Ok(exit.amount));
    for i in &b.installments {
        assert_eq!(
            (i.paid.fees, i.paid.late_charges),
            (Money::ZERO, Money::ZERO)
        );
        assert_eq!(i.paid.principal, i.due.principal);
    }
}

/// A term shorter than the cooling-off window: the exit never asks more interest than the KFS's whole loan does.
#[test]
fn the_cooling_off_exit_never_asks_more_interest_than_the_kfs() {
    let product = Product {
        terms: vec![Term {
            code: "1d".into(),
            period: Period::Days(1),
            installments: 1,
        }],
        ..indian(1)
    };
    let plan = plan_of(&product, Money::from_major(10_000), "1d");
    let on = crate::calendar::add_days(PAYOUT, 3).unwrap();
    let exit = cooling_off_exit(&plan.quote, PAYOUT, on).unwrap();
    assert_eq!(plan.quote.total_interest, Money::from_major(10));
    assert_eq!(exit.interest, plan.quote.total_interest);
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    let s = cooling_off_settlement(&plan, &b, on).unwrap();
    let b = post(&plan, &mut ledger, s.entry);
    assert_eq!(b.cost(), Ok(plan.quote.total_interest));
}

#[test]
fn extensions_stop_at_the_products_maximum_and_a_reversal_moves_the_dates_back() {
    let plan = indian_plan();
    let caps = CapTable::ojk_consumer();
    let mut ledger = opened(&plan);
    let b0 = replay(&plan, &ledger).unwrap();
    let (_, first) = extend(&plan, &b0, 2, PAYOUT, &caps).unwrap();
    let b = post(&plan, &mut ledger, first);
    assert_eq!(b.installments[0].due_date, b0.installments[0].due_date);
    assert_eq!(b.installments[1].due_date, date!(2026 - 12 - 27));
    let (_, second) = extend(&plan, &b, 2, PAYOUT, &caps).unwrap();
    let b = post(&plan, &mut ledger, second.clone());
    assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 17));
    assert!(matches!(
        extend(&plan, &b, 3, PAYOUT, &caps),
        Err(Error::ExtensionNotAllowed(_))
    ));
    // Posting a third anyway is refused by the replay.
    let mut over = ledger.clone();
    over.push(second);
    assert!(matches!(
        replay(&plan, &over),
        Err(Error::InvalidEntry { .. })
    ));
    let undo = reversal(&ledger, ledger.len() as u64 - 1, PAYOUT).unwrap();
    let b = post(&plan, &mut ledger, undo);
    assert_eq!(b.extensions_granted, 1);
    assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 10));
}

#[test]
fn an_extension_that_would_break_an_ojk_cap_is_refused() {
    let mut product = crate::quote::tests::indonesian(20, 100);
    product.extension = Some(ExtensionTerms {
        days: 7,
        fee_percent: Rate::from_bp(500),
        fee_fixed: Money::ZERO,
        max_extensions: 2,
    });
    let plan = plan_of(&product, Money::from_major(1_000_000), "30d");
    let b = replay(&plan, &opened(&plan)).unwrap();
    let got = extend(&plan, &b, 1, PAYOUT, &CapTable::ojk_consumer());
    assert!(
        matches!(
            got,
            Err(Error::ExtensionOverCap {
                cap: CapKind::DailyCost,
                ..
            })
        ),
        "{got:?}"
    );
}

/// An installment so far overdue that the extension's days would not bring its due date past today is not
/// extended: the fee would buy nothing, and the installment would stay overdue and charged. The last day its new date
/// is still ahead, it is.
#[test]
fn an_extension_that_would_leave_the_installment_overdue_is_not_sold() {
    let plan = indian_plan();
    let b = replay(&plan, &opened(&plan)).unwrap();
    let days = plan.quote.extension.unwrap().days;
    let due = b.installments[0].due_date;
    let caps = CapTable::ojk_consumer();
    let last = crate::calendar::add_days(due, days - 1).unwrap();
    let (quote, _) = extend(&plan, &b, 1, last, &caps).unwrap();
    assert!(quote.revised[0].due_date > last);
    for late in [days, days + 5] {
        let on = crate::calendar::add_days(due, late).unwrap();
        assert!(
            matches!(
                extend(&plan, &b, 1, on, &caps),
                Err(Error::ExtensionNotAllowed(_))
            ),
            "{late} days overdue"
        );
    }
}

#[test]
fn a_paid_installment_is_not_extended() {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let b = replay(&plan, &ledger).unwrap();
    let (pay, _) = allocate_repayment(&b, money(347_333), PAYOUT).unwrap();
    let b = post(&plan, &mut ledger, pay);
    assert!(matches!(
        extend(&plan, &b, 1, PAYOUT, &CapTable::ojk_consumer()),
        Err(Error::ExtensionNotAllowed(_))
    ));
}

fn repayment(lines: Vec<Line>, cash: i64) -> LedgerEntry {
    LedgerEntry {
        cash: money(cash),
        lines,
        ..LedgerEntry::new(EntryKind::Repayment, PAYOUT)
    }
}

fn paying(installment: u32, principal: i64) -> Line {
    Line {
        installment,
        due: Buckets::default(),
        paid: Buckets {
            principal: money(principal),
            ..Buckets::default()
        },
    }
}

#[rstest]
#[case::a_repayment_larger_than_owed(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 333_334)], 333_334)))]
#[case::an_unknown_installment(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(4, 1)], 1)))]
#[case::cash_that_does_not_add_up(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 100)], 99)))]
#[case::a_negative_payment(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, -100)], -100)))]
#[case::an_installment_twice(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 1), paying(1, 1)], 2)))]
#[case::reversing_the_payout(|l: &mut Vec<LedgerEntry>| { let r = reversal(l, 0, PAYOUT).unwrap(); l.push(r) })]
#[case::reversing_twice(|l: &mut Vec<LedgerEntry>| {
    l.push(repayment(vec![paying(1, 100)], 100));
    let r = reversal(l, 5, PAYOUT).unwrap();
    l.push(r.clone());
    l.push(r);
})]
#[case::reversing_a_reversal(|l: &mut Vec<LedgerEntry>| {
    l.push(repayment(vec![paying(1, 100)], 100));
    let r = reversal(l, 5, PAYOUT).unwrap();
    l.push(r);
    let rr = reversal(l, 6, PAYOUT).unwrap();
    l.push(rr);
})]
#[case::a_reversal_that_is_not_the_exact_negation(|l: &mut Vec<LedgerEntry>| {
    l.push(repayment(vec![paying(1, 100)], 100));
    let mut r = reversal(l, 5, PAYOUT).unwrap();
    r.cash = money(-99);
    l.push(r);
})]
#[case::a_reversal_of_a_later_entry(|l: &mut Vec<LedgerEntry>| {
    let mut r = reversal(l, 4, PAYOUT).unwrap();
    r.reverses = Some(9);
    l.push(r);
})]
#[case::a_schedule_other_than_the_plan(|l: &mut Vec<LedgerEntry>| l[2].lines[0].due.interest = money(1))]
#[case::a_second_schedule(|l: &mut Vec<LedgerEntry>| { let s = l[2].clone(); l.push(s) })]
#[case::a_settlement_that_leaves_something_owed(|l: &mut Vec<LedgerEntry>| l.push(LedgerEntry {
    cash: money(100),
    lines: vec![paying(1, 100)],
    ..LedgerEntry::new(EntryKind::Payoff, PAYOUT)
}))]
#[case::a_payout_of_another_amount(|l: &mut Vec<LedgerEntry>| l[0].cash = money(1))]
#[case::an_entry_before_the_payout(|l: &mut Vec<LedgerEntry>| {
    let mut r = repayment(vec![paying(1, 100)], 100);
    r.on = date!(2026 - 11 - 21);
    l.push(r);
})]
#[case::a_late_charge_that_is_a_fee(|l: &mut Vec<LedgerEntry>| l.push(LedgerEntry {
    lines: vec![Line { installment: 1, due: Buckets { fees: money(1), ..Buckets::default() }, paid: Buckets::default() }],
    ..LedgerEntry::new(EntryKind::LateCharge, PAYOUT)
}))]
fn replay_refuses_nonsense(#[case] break_it: fn(&mut Vec<LedgerEntry>)) {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let opening = ledger.len();
    break_it(&mut ledger);
    let got = replay(&plan, &ledger);
    assert!(matches!(got, Err(Error::InvalidEntry { .. })), "{got:?}");
    // Continued from the opening's balances, what was appended is refused as well.
    if let Ok(before) = replay(&plan, &ledger[..opening]) {
        let onto = replay_onto(&plan, &before, &ledger[opening..]);
        assert!(matches!(onto, Err(Error::InvalidEntry { .. })), "{onto:?}");
    }
}

#[test]
fn a_reversal_restores_the_balances_before_the_reversed_entry() {
    let plan = indian_plan();
    let mut ledger = opened(&plan);
    let before = replay(&plan, &ledger).unwrap();
    let (pay, _) = allocate_repayment(&before, money(500_000), date!(2026 - 11 - 30)).unwrap();
    post(&plan, &mut ledger, pay);
    let undo = reversal(&ledger, 5, date!(2026 - 12 - 01)).unwrap();
    let after = post(&plan, &mut ledger, undo);
    assert_eq!(money_view(&after), money_view(&before));
}

/// Everything about balances that is money or dates (the count of charged days survives a reversal by design).
fn money_view(b: &LoanBalances) -> impl PartialEq + std::fmt::Debug {
    let per: Vec<_> = b
        .installments
        .iter()
        .map(|i| (i.number, i.due_date, i.due, i.paid, i.outstanding))
        .collect();
    (
        per,
        (b.due, b.paid, b.outstanding, b.fees_kept, b.paid_out),
        (
            b.extensions_granted,
            b.extension_fees,
            b.cash_in,
            b.excess,
            b.refunded,
        ),
        (b.closed_by, b.settled),
    )
}

#[derive(Debug, Clone)]
enum Step {
    Repay(i64),
    Overdue,
    Extend,
    Reverse(usize),
    Payoff,
}

fn step() -> impl Strategy<Value = (Step, u32)> {
    let step = prop_oneof![
        4 => (1i64..400_000).prop_map(Step::Repay),
        4 => Just(Step::Overdue),
        1 => Just(Step::Extend),
        3 => any::<usize>().prop_map(Step::Reverse),
        1 => Just(Step::Payoff),
    ];
    (step, 0u32..6)
}

fn random_plan(
    steps: i64,
    daily_bp: i64,
    days: u32,
    count: u32,
    deducted: bool,
    india: bool,
) -> Plan {
    let mut product = indian(count);
    product.terms[0].period = Period::Days(days);
    product.interest.rate = Rate::from_bp(daily_bp);
    product.fees_deducted_at_disbursal = deducted;
    if !india {
        product.market = Market::Indonesia;
        // Small enough for OJK's total cap on the smallest amount, so the quote is lawful.
        product.late_charge.flat = Money::from_major(100);
        product.late_charge.per_day = Money::from_major(1);
        product.fees[0].percent = Rate::from_bp(50);
    }
    plan_of(&product, Money::from_major(2_000 + 500 * steps), "14d")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn replay_keeps_every_balance_whole_and_reversing_everything_returns_to_the_payout(
        steps in 0i64..=100,
        daily_bp in 0i64..=10,
        days in 7u32..=30,
        count in 1u32..=4,
        deducted in any::<bool>(),
        india in any::<bool>(),
        script in prop::collection::vec(step(), 0..30),
    ) {
        replay_script(random_plan(steps, daily_bp, days, count, deducted, india), india, script)?;
    }
}

/// The entries of `ledger` a reversal may undo, oldest first: not the opening's, not a reversal, not undone already.
fn reversible(ledger: &[LedgerEntry], reversed: &BTreeSet<usize>) -> Vec<usize> {
    (0..ledger.len())
        .filter(|i| {
            !reversed.contains(i)
                && !matches!(
                    ledger[*i].kind,
                    EntryKind::Payout
                        | EntryKind::FeeDeducted
                        | EntryKind::Scheduled
                        | EntryKind::Reversal
                )
        })
        .collect()
}

/// The replay property's body: play `script` on a new loan, checking after every step that the balances are whole
/// and that `replay_onto` agrees with the full replay; then undo everything and arrive at the payout's balances.
fn replay_script(plan: Plan, india: bool, script: Vec<(Step, u32)>) -> Result<(), TestCaseError> {
    {
        let caps = CapTable::ojk_consumer();
        let mut ledger = opened(&plan);
        let opening = replay(&plan, &ledger).unwrap();
        let mut on = plan.payout_date();
        let mut reversed = BTreeSet::new();
        for (action, gap) in script {
            on = crate::calendar::add_days(on, gap * 4).unwrap();
            let b = replay(&plan, &ledger).unwrap();
            let new: Vec<LedgerEntry> = match action {
                Step::Repay(amount) => vec![allocate_repayment(&b, money(amount), on).unwrap().0],
                Step::Overdue => late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps).unwrap(),
                Step::Extend => b
                    .installments
                    .iter()
                    .find(|i| !i.outstanding.is_zero())
                    .and_then(|i| extend(&plan, &b, i.number, on, &caps).ok())
                    .map(|(_, e)| e)
                    .into_iter()
                    .collect(),
                Step::Payoff => payoff(&plan, &b, on).map(|s| s.entry).into_iter().collect(),
                Step::Reverse(pick) => {
                    let reversible = reversible(&ledger, &reversed);
                    // Reversing an entry that later ones depend on may be refused (a paid charge); try the pick.
                    match reversible.get(pick % reversible.len().max(1)) {
                        Some(&i) => {
                            let r = reversal(&ledger, i as u64, on).unwrap();
                            let mut tried = ledger.clone();
                            tried.push(r.clone());
                            if replay(&plan, &tried).is_ok() {
                                reversed.insert(i);
                                vec![r]
                            } else {
                                vec![]
                            }
                        }
                        None => vec![],
                    }
                }
            };
            // Continuing the replay from the balances gives the replay of the whole ledger, or refuses the entries
            // that need the ledger before them.
            let onto = replay_onto(&plan, &b, &new);
            let needs_ledger = new.iter().any(|e| {
                matches!(
                    e.kind,
                    EntryKind::Payout | EntryKind::FeeDeducted | EntryKind::Reversal
                )
            });
            ledger.extend(new);
            let b = replay(&plan, &ledger).unwrap();
            if needs_ledger {
                prop_assert!(onto.is_err());
            } else {
                prop_assert_eq!(&onto.unwrap(), &b);
            }
            for i in &b.installments {
                prop_assert!(
                    !i.outstanding.has_negative()
                        && !i.paid.has_negative()
                        && !i.due.has_negative()
                );
                prop_assert_eq!(i.paid.plus(i.outstanding).unwrap(), i.due);
                prop_assert!(
                    i.due.late_charges <= plan.quote.late_charge.max_per_installment().unwrap()
                );
            }
            prop_assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
            prop_assert_eq!(
                b.cash_in,
                b.paid.total().unwrap().checked_add(b.excess).unwrap()
            );
            if !india {
                prop_assert!(
                    b.cost().unwrap() <= caps.total_cost_limit(plan.quote.principal).unwrap()
                );
            }
            prop_assert_eq!(b.settled, b.outstanding.is_zero());
        }
        // Undo everything not yet undone, each time the newest payment whose reversal replays, then the newest
        // charge. Strictly newest first can be refused once the script reversed out of order: a payoff that moved
        // interest paid twice to the principal leaves that interest negative when the payments after it are undone
        // first, so it must go first. Some reversal must replay at every turn: money is never stuck.
        loop {
            let undoable: Vec<usize> = reversible(&ledger, &reversed).into_iter().rev().collect();
            if undoable.is_empty() {
                break;
            }
            let payments_first = undoable
                .iter()
                .filter(|i| ledger[**i].kind.receives_cash())
                .chain(
                    undoable
                        .iter()
                        .filter(|i| !ledger[**i].kind.receives_cash()),
                );
            let mut undone = false;
            for &i in payments_first {
                let mut tried = ledger.clone();
                tried.push(reversal(&ledger, i as u64, on).unwrap());
                if let Ok(b) = replay(&plan, &tried) {
                    prop_assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
                    ledger = tried;
                    reversed.insert(i);
                    undone = true;
                    break;
                }
            }
            prop_assert!(undone, "no entry of {:?} can be reversed", undoable);
        }
        let end = replay(&plan, &ledger).unwrap();
        prop_assert_eq!(money_view(&end), money_view(&opening));
    }
    Ok(())
}

/// Found by the replay property (shrunk): paid early, the payoff moved one sen of interest paid twice to the
/// principal; after the payments before it were reversed, undoing the payment after it first is refused (it would
/// leave that interest negative), and the payoff must be undone first.
#[test]
fn a_payoff_that_moved_interest_paid_twice_to_the_principal_is_undone_before_the_payment_after_it()
{
    let script = vec![
        (Step::Repay(26905), 1),
        (Step::Repay(110_446), 1),
        (Step::Payoff, 5),
        (Step::Reverse(16305639878856434289), 0),
        (Step::Repay(22751), 0),
        (Step::Reverse(6817184931645293115), 0),
    ];
    replay_script(random_plan(87, 9, 29, 1, false, false), false, script).unwrap();
}

/// Every day from the due date on, the arrears' "tomorrow" is exactly what the overdue job posts the next day, run
/// before or after today's job; `product` changes the late charge.
fn tomorrow_is_the_jobs_charge(plan: &Plan, days: u32, job_first: bool) {
    let caps = CapTable::ojk_consumer();
    let mut ledger = opened(plan);
    let due = plan.quote.installments[0].due_date;
    for d in 0..days {
        let on = crate::calendar::add_days(due, d).unwrap();
        let next = crate::calendar::add_days(on, 1).unwrap();
        if job_first {
            let b = replay(plan, &ledger).unwrap();
            ledger.extend(late_charges_due(plan, &b, &BTreeSet::new(), on, &caps).unwrap());
        }
        let b = replay(plan, &ledger).unwrap();
        let told = arrears(plan, &b, &BTreeSet::new(), on, &caps).unwrap();
        if !job_first {
            ledger.extend(late_charges_due(plan, &b, &BTreeSet::new(), on, &caps).unwrap());
        }
        let b = replay(plan, &ledger).unwrap();
        let posted: i64 = late_charges_due(plan, &b, &BTreeSet::new(), next, &caps)
            .unwrap()
            .iter()
            .flat_map(|e| e.lines.iter())
            .map(|l| l.due.late_charges.minor())
            .sum();
        match told {
            None => assert_eq!(d, 0, "only the due date itself is not overdue"),
            Some(a) => {
                assert_eq!(a.days_late, i64::from(d));
                assert_eq!(a.late_charge_tomorrow.minor(), posted, "day {d}");
                assert!(a.late_charge_more_at_most >= a.late_charge_tomorrow);
                assert_eq!(a.total, a.owed.checked_add(a.late_charges).unwrap());
            }
        }
    }
}

#[test]
fn the_arrears_tomorrow_is_what_the_overdue_job_posts_whether_it_ran_today_or_not() {
    tomorrow_is_the_jobs_charge(&one_installment_indian(), 40, true);
    tomorrow_is_the_jobs_charge(&one_installment_indian(), 40, false);
    tomorrow_is_the_jobs_charge(&indonesian_plan(), 40, true);
    tomorrow_is_the_jobs_charge(&indonesian_plan(), 40, false);
}

#[test]
fn the_arrears_say_the_parts_the_days_late_and_how_much_more_can_come() {
    let plan = one_installment_indian();
    let caps = CapTable::ojk_consumer();
    let mut ledger = opened(&plan);
    let due = plan.quote.installments[0].due_date;
    // The job ran on the due date and the two days after: ₹300 once, then ₹20.
    run_job(
        &plan,
        &mut ledger,
        due,
        3,
        |_| BTreeSet::new(),
        &caps,
        false,
    );
    let b = replay(&plan, &ledger).unwrap();
    let on = crate::calendar::add_days(due, 3).unwrap();
    let a = arrears(&plan, &b, &BTreeSet::new(), on, &caps)
        .unwrap()
        .unwrap();
    let scheduled = plan.quote.installments[0].amount;
    assert_eq!((a.first, a.last, a.due_date, a.days_late), (1, 1, due, 3));
    assert_eq!(a.owed, scheduled);
    assert_eq!(a.late_charges, Money::from_major(320));
    assert_eq!(
        a.total,
        scheduled.checked_add(Money::from_major(320)).unwrap()
    );
    // Today's ₹20 is not posted yet; tomorrow adds ₹20 more; at most ₹900 in all, so ₹900 − ₹340 can still come.
    assert_eq!(a.late_charge_tomorrow, Money::from_major(20));
    assert_eq!(a.late_charge_more_at_most, Money::from_major(560));
    // Nothing is past due on the due date itself, nor before it.
    assert_eq!(
        arrears(
            &plan,
            &replay(&plan, &opened(&plan)).unwrap(),
            &BTreeSet::new(),
            due,
            &caps
        ),
        Ok(None)
    );
}

#[test]
fn a_charge_taken_once_does_not_grow_and_a_verifying_installment_accrues_nothing() {
    let mut plan = one_installment_indian();
    plan.quote.late_charge = crate::LateCharge {
        flat: Money::from_major(400),
        per_day: Money::ZERO,
        max_days: 0,
    };
    let caps = CapTable::ojk_consumer();
    let mut ledger = opened(&plan);
    let due = plan.quote.installments[0].due_date;
    run_job(
        &plan,
        &mut ledger,
        due,
        4,
        |_| BTreeSet::new(),
        &caps,
        false,
    );
    let b = replay(&plan, &ledger).unwrap();
    let on = crate::calendar::add_days(due, 3).unwrap();
    let a = arrears(&plan, &b, &BTreeSet::new(), on, &caps)
        .unwrap()
        .unwrap();
    assert_eq!(a.late_charges, Money::from_major(400));
    assert_eq!(a.late_charge_tomorrow, Money::ZERO);
    assert_eq!(a.late_charge_more_at_most, Money::ZERO);

    // The daily product, frozen by a payment waiting for finance: nothing tomorrow.
    let plan = one_installment_indian();
    let b = replay(&plan, &opened(&plan)).unwrap();
    let frozen: BTreeSet<u32> = [1].into();
    let a = arrears(&plan, &b, &frozen, on, &caps).unwrap().unwrap();
    assert_eq!(a.late_charges, Money::ZERO);
    assert_eq!(a.late_charge_tomorrow, Money::ZERO);
}

#[test]
fn the_cooling_off_offer_is_the_priced_exit_in_its_parts_until_its_last_day() {
    let plan = indian_plan();
    let caps = CapTable::ojk_consumer();
    let b = replay(&plan, &opened(&plan)).unwrap();
    let last = crate::calendar::add_days(PAYOUT, plan.quote.cooling_off_days).unwrap();
    for d in 0..=plan.quote.cooling_off_days {
        let on = crate::calendar::add_days(PAYOUT, d).unwrap();
        let offer = cooling_off_offer(&plan, &b, on).unwrap();
        let priced = crate::settle::price(
            &plan,
            &b,
            crate::RepaymentChoice::CoolingOff,
            on,
            &caps,
            false,
        )
        .unwrap();
        assert_eq!(offer.amount, priced.amount);
        assert_eq!(
            offer.amount,
            offer
                .principal
                .checked_add(offer.interest)
                .unwrap()
                .checked_sub(offer.fees_refunded)
                .unwrap()
                .checked_sub(offer.repaid)
                .unwrap()
        );
        assert_eq!(offer.repaid, Money::ZERO);
        assert_eq!(offer.days_used, i64::from(d));
        assert_eq!(offer.open_until, last);
        assert_eq!(offer.principal, Money::from_major(10_000));
        assert_eq!(offer.fees_refunded, b.fees_kept);
    }
    // ₹10,000 at 0.1% a day: ₹10 a day used.
    assert_eq!(
        cooling_off_offer(&plan, &b, last).unwrap().interest,
        Money::from_major(30)
    );
    assert!(cooling_off_offer(&plan, &b, crate::calendar::add_days(last, 1).unwrap()).is_err());
}
