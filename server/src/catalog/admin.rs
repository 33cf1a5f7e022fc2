//! Admins' edits of the loan products (PRODUCT.md §3, docs/API-CONSOLE.md): create, edit (a new version; market and
//! currency never change), disable and enable. A product is checked against the rules and the caps of the settings
//! before it is stored; a cap it would break is named in the field error. Each change writes the audit trail (before
//! and after) and moves the catalog's version counter in one transaction, then this server reloads at once and the
//! others within `REFRESH_EVERY_MS`. Orders keep the version they were made on.

use kilat_domain::rate::RATE_SCALE;
use kilat_domain::{
    CapKind, CapTable, DailyCost, DailyCostCap, Market, Product, Rate, quote_with_caps,
};
use serde::Serialize;
use serde_json::Value;
use time::Date;

use super::{Catalog, parse};
use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::i18n::format_money;
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::products::StoredProduct;

const ADMIN: &[Role] = &[Role::Admin];

/// A product as the console lists it: its current definition, version and whether it is offered.
#[derive(Debug, Clone)]
pub struct ProductRecord {
    pub product: Product,
    pub version: i64,
    pub enabled: bool,
    pub updated_at: i64,
}

/// The price of a product's smallest loan on its first term disbursed today: what the console's list shows.
#[derive(Debug, Clone)]
pub struct Sample {
    pub term_code: String,
    pub amount: i64,
    /// Hundredths of a percent.
    pub apr: i64,
    pub apr_display: String,
    /// Indonesia: interest plus fees a day as a share of the principal, and the cap it is checked against.
    pub daily_cost: Option<(String, String)>,
}

/// The sample price of a product as of today, or `None` when it cannot be quoted (e.g. it breaks today's caps).
pub fn sample(s: &Services, product: &Product) -> Option<Sample> {
    let term = product.terms.first()?;
    let today = s.clock.today(product.market);
    let kfs = super::key_fact_statement(
        &s.caps,
        product,
        product.amount.min,
        &term.code,
        today,
        &s.site.lender(product.market),
    )
    .ok()?;
    Some(Sample {
        term_code: term.code.clone(),
        amount: product.amount.min.minor(),
        apr: kfs.apr.0,
        apr_display: kfs.apr_display.clone(),
        daily_cost: kfs.daily_cost.map(|d| (percent(d.rate), percent(d.cap))),
    })
}

/// A definition as it would be offered today, before it is saved: the list's sample (the same loan, so an edit's APR
/// can be set beside the current one) and the Key Fact Statement of the loan the admin chose.
#[derive(Debug, Clone)]
pub struct Preview {
    pub sample: Option<Sample>,
    pub kfs: kilat_domain::KeyFactStatement,
}

/// The loan a preview quotes: an amount in minor units and a term code, each defaulting to the product's smallest
/// amount and first term.
#[derive(Debug, Clone, Copy, Default)]
pub struct PreviewLoan<'a> {
    pub amount: Option<i64>,
    pub term_code: Option<&'a str>,
}

/// What a definition would offer today (admin), checked exactly as a save checks it (the rules, then the caps, each
/// refusal a field error naming the cap) but stored nowhere and audited nowhere: the console's form shows it as the
/// admin types. The code is not checked (a new product's may not be typed yet).
pub fn preview(
    s: &Services,
    catalog: &Catalog,
    op: &Operator,
    body: &Value,
    loan: PreviewLoan<'_>,
) -> Result<Preview, Error> {
    op.require_any(ADMIN)?;
    let mut product = read(body)?;
    if product.code.trim().is_empty() {
        // A new product's code may not be typed yet; the rules want one, and the KFS only names it.
        product.code = "new-product".to_owned();
    }
    check_rules(s, catalog, &product)?;
    let term = match loan.term_code {
        Some(code) => product
            .terms
            .iter()
            .find(|t| t.code == code)
            .ok_or_else(|| Error::field("termCode", FieldProblem::new("field.unknown_term")))?,
        None => product
            .terms
            .first()
            .ok_or_else(|| Error::field("product", FieldProblem::required()))?,
    };
    let amount = match loan.amount {
        Some(minor) => kilat_domain::Money::from_minor(minor),
        None => product.amount.min,
    };
    let kfs = super::key_fact_statement(
        &s.caps,
        &product,
        amount,
        &term.code,
        s.clock.today(product.market),
        &s.site.lender(product.market),
    )?;
    Ok(Preview {
        sample: sample(s, &product),
        kfs,
    })
}

/// What the audit trail keeps of a product: the definition and whether it was offered.
#[derive(Serialize)]
struct Audited<'a> {
    version: i64,
    enabled: bool,
    product: &'a Product,
}

/// Every product, offered or not, by market then code (admin).
pub async fn list(s: &Services, op: &Operator) -> Result<Vec<ProductRecord>, Error> {
    op.require_any(ADMIN)?;
    let (_, rows) = s.db.stored_products().await?;
    let mut out = rows.iter().map(record).collect::<Result<Vec<_>, Error>>()?;
    out.sort_by_key(|r| {
        (
            r.product.market == Market::Indonesia,
            r.product.code.clone(),
        )
    });
    Ok(out)
}

fn record(row: &StoredProduct) -> Result<ProductRecord, Error> {
    Ok(ProductRecord {
        product: parse(row)?,
        version: row.version,
        enabled: row.disabled_at.is_none(),
        updated_at: row.updated_at,
    })
}

/// Creates a product as version 1 (admin). A code in use is a field error on `code`.
pub async fn create(
    s: &Services,
    catalog: &Catalog,
    op: &Operator,
    body: &Value,
) -> Result<ProductRecord, Error> {
    op.require_any(ADMIN)?;
    let product = read(body)?;
    // Each market's products are its lender's: an admin prices only the markets they work in.
    op.require_market(product.market)?;
    check(s, catalog, &product)?;
    let definition = serde_json::to_string(&product).map_err(anyhow::Error::from)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if tx
        .insert_product(&product, &definition, &op.id, now)
        .await?
        .is_err()
    {
        return Err(Error::field(
            "code",
            FieldProblem::new("field.product_code_taken"),
        ));
    }
    let after = audited(1, true, &product)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "product.create",
        entity: "product",
        entity_id: &product.code,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.bump_catalog_version().await?;
    tx.commit().await?;
    tracing::info!(operator = %op.id, product = %product.code, "product created");
    reload(s, catalog).await?;
    Ok(ProductRecord {
        product,
        version: 1,
        enabled: true,
        updated_at: now,
    })
}

/// Replaces a product's definition with a new version (admin). Market and currency cannot change; the code is the
/// path's. Orders already made keep theirs: only new applications see the new version. `base_version` is the version
/// the admin edited (required, a positive whole number): another admin's version saved since is `product_changed`,
/// checked with the product's row locked, so two edits of one version never both land and one undo the other unseen.
pub async fn edit(
    s: &Services,
    catalog: &Catalog,
    op: &Operator,
    code: &str,
    base_version: Option<&str>,
    body: &Value,
) -> Result<ProductRecord, Error> {
    op.require_any(ADMIN)?;
    let base_version =
        match base_version.map(str::trim).filter(|v| !v.is_empty()) {
            None => return Err(Error::field("baseVersion", FieldProblem::required())),
            Some(v) => v.parse::<i64>().ok().filter(|v| *v > 0).ok_or_else(|| {
                Error::field("baseVersion", FieldProblem::new("field.base_version"))
            })?,
        };
    let mut product = read(body)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = tx.product_for_update(code).await?.ok_or(Error::NotFound)?;
    let before = record(&row)?;
    op.require_market(before.product.market)?;
    if row.version != base_version {
        return Err(Refusal::ProductChanged.into());
    }
    if product.market != before.product.market {
        return Err(Error::field("market", FieldProblem::new("field.immutable")));
    }
    if !product.code.is_empty() && product.code != before.product.code {
        return Err(Error::field("code", FieldProblem::new("field.immutable")));
    }
    product.code = before.product.code.clone();
    check(s, catalog, &product)?;
    let definition = serde_json::to_string(&product).map_err(anyhow::Error::from)?;
    let version = row.version + 1;
    tx.write_product_version(code, version, &definition, &op.id, now)
        .await?;
    let before_json = audited(before.version, before.enabled, &before.product)?;
    let after_json = audited(version, before.enabled, &product)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "product.edit",
        entity: "product",
        entity_id: code,
        before_json: Some(&before_json),
        after_json: Some(&after_json),
        at: now,
    })
    .await?;
    tx.bump_catalog_version().await?;
    tx.commit().await?;
    tracing::info!(operator = %op.id, product = %code, version, "product edited");
    reload(s, catalog).await?;
    Ok(ProductRecord {
        product,
        version,
        enabled: before.enabled,
        updated_at: now,
    })
}

/// Stops offering a product to new applications (`enabled: false`) or offers it again (admin). Orders already made
/// are untouched. Setting the state it has already changes nothing and writes nothing.
pub async fn set_enabled(
    s: &Services,
    catalog: &Catalog,
    op: &Operator,
    code: &str,
    enabled: bool,
) -> Result<ProductRecord, Error> {
    op.require_any(ADMIN)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = tx.product_for_update(code).await?.ok_or(Error::NotFound)?;
    let before = record(&row)?;
    op.require_market(before.product.market)?;
    if before.enabled == enabled {
        tx.rollback().await?;
        return Ok(before);
    }
    if enabled {
        // The caps may have changed since it was disabled.
        check(s, catalog, &before.product)?;
    }
    tx.set_product_disabled(code, (!enabled).then_some(now), now)
        .await?;
    let before_json = audited(before.version, before.enabled, &before.product)?;
    let after_json = audited(before.version, enabled, &before.product)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: if enabled {
            "product.enable"
        } else {
            "product.disable"
        },
        entity: "product",
        entity_id: code,
        before_json: Some(&before_json),
        after_json: Some(&after_json),
        at: now,
    })
    .await?;
    tx.bump_catalog_version().await?;
    tx.commit().await?;
    tracing::info!(operator = %op.id, product = %code, enabled, "product availability changed");
    reload(s, catalog).await?;
    Ok(ProductRecord {
        enabled,
        updated_at: now,
        ..before
    })
}

async fn reload(s: &Services, catalog: &Catalog) -> Result<(), Error> {
    catalog
        .refresh(&s.db, s.clock.now().date(), s.clock.now_ms(), true)
        .await?;
    Ok(())
}

fn audited(version: i64, enabled: bool, product: &Product) -> Result<String, Error> {
    Ok(serde_json::to_string(&Audited {
        version,
        enabled,
        product,
    })
    .map_err(anyhow::Error::from)?)
}

/// The body as a product definition (docs/MONEY.md §7 as JSON); what does not read is a field error on `product`.
fn read(body: &Value) -> Result<Product, Error> {
    let mut body = body.clone();
    // The code of an edit is the path's: a body may leave it out.
    if let Some(obj) = body.as_object_mut() {
        obj.entry("code").or_insert(Value::String(String::new()));
    }
    serde_json::from_value::<Product>(body).map_err(|e| {
        Error::field(
            "product",
            FieldProblem::new("field.product_invalid").with("reason", e),
        )
    })
}

/// The product's checks as of today in its market: the rules, then the caps, for its loans and for its extension taken
/// as many times as it allows. A cap it breaks is named with the product's own figure and the cap's (e.g. "daily cost
/// 0.35% is over the OJK cap of 0.3% a day"), on `interest` (or `lateCharge`) for the loans, on `extension` for the
/// extension.
fn check(s: &Services, catalog: &Catalog, product: &Product) -> Result<(), Error> {
    check_code(product)?;
    check_rules(s, catalog, product)
}

/// A product's code: required, lower-case letters, digits and hyphens, at most 64 characters.
fn check_code(product: &Product) -> Result<(), Error> {
    if product.code.trim().is_empty() {
        return Err(Error::field("code", FieldProblem::required()));
    }
    if product.code.chars().count() > 64
        || !product
            .code
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(Error::field(
            "code",
            FieldProblem::new("field.product_code"),
        ));
    }
    Ok(())
}

/// The rules and the caps as of today in the product's market; see [`check`].
fn check_rules(s: &Services, catalog: &Catalog, product: &Product) -> Result<(), Error> {
    let today = s.clock.today(product.market);
    match catalog.validate(product, today) {
        Ok(()) => Ok(()),
        Err(kilat_domain::Error::CapExceeded { cap, .. }) => {
            Err(cap_refusal(s, product, today, cap))
        }
        Err(kilat_domain::Error::ExtensionOverCap { cap, .. }) => {
            Err(extension_refusal(s, product, today, cap))
        }
        Err(kilat_domain::Error::InvalidProduct { reason, .. }) => Err(Error::field(
            "product",
            FieldProblem::new("field.product_invalid").with("reason", reason),
        )),
        Err(
            kilat_domain::Error::AmountOutOfRange { .. }
            | kilat_domain::Error::AmountNotOnStep { .. },
        ) => Err(Error::field(
            "amount",
            FieldProblem::new("field.product_amounts"),
        )),
        Err(other) => Err(Error::field(
            "product",
            FieldProblem::new("field.product_invalid").with("reason", other),
        )),
    }
}

/// A cap table that refuses nothing: what quotes a product's own figures, to be set beside the real caps.
fn open_caps() -> CapTable {
    CapTable {
        daily_cost: vec![DailyCostCap {
            effective_from: time::macros::date!(1970 - 01 - 01),
            tenor_from_months: 0,
            tenor_under_months: None,
            daily: Rate::from_ppb(RATE_SCALE),
        }],
        total_cost: Rate::from_ppb(1_000_000 * RATE_SCALE),
        late_charge_daily: Vec::new(),
    }
}

/// The field error on `extension` of a product whose loans are within the caps but whose extension, taken as many
/// times as it allows, is not (PRODUCT.md §7): the worst loan among its terms at both ends, with what it would cost
/// over the extended days beside the cap and what the cap allows (e.g. "… a loan of Rp1.000.000 cost Rp91.200 over
/// 21 days, 0.4343% a day: over the OJK cap of 0.3% a day (Rp63.000)").
fn extension_refusal(s: &Services, product: &Product, today: Date, cap: CapKind) -> Error {
    let caps = &s.caps;
    let problem = match cap {
        CapKind::DailyCost => {
            let open = open_caps();
            product
                .terms
                .iter()
                .flat_map(|t| [product.amount.min, product.amount.max].map(|a| (t, a)))
                .filter_map(|(t, a)| quote_with_caps(product, a, &t.code, today, &open).ok())
                .filter_map(|q| {
                    let d = DailyCost::extended(&q, caps).ok().flatten()?;
                    Some((q.principal, d))
                })
                .filter(|(_, d)| d.rate > d.cap)
                .max_by_key(|(_, d)| d.rate.ppb() - d.cap.ppb())
                .map(|(amount, d)| {
                    let currency = product.market.currency();
                    FieldProblem::new("field.cap_extension")
                        .with("times", product.extension.map_or(0, |e| e.max_extensions))
                        .with("amount", format_money(amount, currency))
                        .with("cost", format_money(d.cost, currency))
                        .with("days", d.days)
                        .with("rate", percent(d.rate))
                        .with("cap", percent(d.cap))
                        .with("limit", format_money(d.limit, currency))
                })
        }
        CapKind::TotalCost => None,
    };
    Error::field(
        "extension",
        problem.unwrap_or_else(|| {
            FieldProblem::new("field.cap_total_cost").with("cap", percent(caps.total_cost))
        }),
    )
}

/// The field error naming the cap a product breaks, with the worst figure among its terms at both ends.
fn cap_refusal(s: &Services, product: &Product, today: Date, cap: CapKind) -> Error {
    let caps = &s.caps;
    // The product's own figures, quoted under a table that refuses nothing.
    let open = open_caps();
    let mut errors = FieldErrors::default();
    match cap {
        CapKind::DailyCost => {
            let worst = product
                .terms
                .iter()
                .flat_map(|t| [product.amount.min, product.amount.max].map(|a| (t, a)))
                .filter_map(|(t, a)| quote_with_caps(product, a, &t.code, today, &open).ok())
                .filter_map(|q| DailyCost::of(&q, caps).ok().flatten())
                .filter(|d| d.rate > d.cap)
                .max_by_key(|d| d.rate.ppb() - d.cap.ppb());
            let problem = match worst {
                Some(d) => FieldProblem::new("field.cap_daily_cost")
                    .with("rate", percent(d.rate))
                    .with("cap", percent(d.cap)),
                None => {
                    FieldProblem::new("field.cap_total_cost").with("cap", percent(caps.total_cost))
                }
            };
            errors.add("interest", problem);
        }
        CapKind::TotalCost => {
            errors.add(
                "lateCharge",
                FieldProblem::new("field.cap_total_cost").with("cap", percent(caps.total_cost)),
            );
        }
    }
    Error::Validation(errors)
}

/// A rate as people write it: "0.3%", "0.35%", "100%" (at most four decimals, no trailing zeros).
fn percent(rate: Rate) -> String {
    // ppb / 10^7 is the percentage; keep four decimals, rounded up so a figure over a cap never reads as equal.
    let ten_thousandths = (i128::from(rate.ppb()) + 999) / 1_000;
    let whole = ten_thousandths / 10_000;
    let frac = ten_thousandths % 10_000;
    if frac == 0 {
        format!("{whole}%")
    } else {
        let digits = format!("{frac:04}");
        format!("{whole}.{}%", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::percent;
    use kilat_domain::Rate;

    #[test]
    fn a_rate_reads_as_a_short_percentage() {
        assert_eq!(percent(Rate::from_ppb(3_000_000)), "0.3%");
        assert_eq!(percent(Rate::from_ppb(3_500_000)), "0.35%");
        assert_eq!(percent(Rate::from_ppb(1_000_000_000)), "100%");
        assert_eq!(percent(Rate::from_ppb(3_000_001)), "0.3001%");
    }
}
