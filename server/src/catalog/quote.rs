//! `kilat quote`: the Key Fact Statement of one loan from a product file, for checking a product before publishing.

use std::path::Path;

use anyhow::Context;
use kilat_domain::{CapTable, KeyFactStatement, Money, Product, quote_with_caps};
use time::Date;
use time::macros::format_description;

use crate::settings::SiteSettings;

/// Reads and validates the product, quotes `amount` on `term` disbursed on `date` (today when `None`), and seals
/// the statement with the lender and grievance officer of the settings.
pub fn key_fact_statement(
    site: &SiteSettings,
    caps: &CapTable,
    product_file: &Path,
    amount: i64,
    term: &str,
    date: Option<&str>,
) -> anyhow::Result<KeyFactStatement> {
    let text = std::fs::read_to_string(product_file)
        .with_context(|| format!("reading the product file {}", product_file.display()))?;
    let product = Product::from_toml_str(&text)
        .with_context(|| format!("{} is not a valid product", product_file.display()))?;
    let disbursed = match date {
        Some(text) => Date::parse(text, format_description!("[year]-[month]-[day]"))
            .with_context(|| format!("--date must be YYYY-MM-DD, not {text:?}"))?,
        None => product.market.local_date(time::OffsetDateTime::now_utc()),
    };
    product
        .validate(disbursed, caps)
        .with_context(|| format!("the product {} fails its checks", product.code))?;
    let quote = quote_with_caps(&product, Money::from_minor(amount), term, disbursed, caps)
        .with_context(|| format!("{amount} minor units on term {term:?} cannot be quoted"))?;
    KeyFactStatement::new_with_caps(&quote, &site.lender(quote.market), caps)
        .context("building the Key Fact Statement")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn site() -> SiteSettings {
        crate::settings::Settings::load(None)
            .expect("defaults")
            .site
    }

    /// The default cap table of the settings is today's OJK table.
    fn caps() -> CapTable {
        let caps = crate::settings::Settings::load(None)
            .expect("defaults")
            .caps
            .indonesia;
        assert_eq!(caps, CapTable::ojk_consumer());
        caps
    }

    fn product(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("products")
            .join(name)
    }

    #[test]
    fn every_demo_product_quotes_at_its_smallest_amount_on_every_term() {
        for entry in
            std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("products")).unwrap()
        {
            let path = entry.unwrap().path();
            let p = Product::from_toml_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for term in &p.terms {
                let kfs = key_fact_statement(
                    &site(),
                    &caps(),
                    &path,
                    p.amount.min.minor(),
                    &term.code,
                    Some("2026-11-02"),
                )
                .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                assert!(kfs.is_intact());
                assert_eq!(kfs.lender.name, site().company(kfs.market).lender_name);
            }
        }
    }

    #[test]
    fn a_quote_lists_each_installment_with_its_date_and_the_apr() {
        let kfs = key_fact_statement(
            &site(),
            &caps(),
            &product("in-flexi-14d.toml"),
            1_000_000,
            "14dx3",
            Some("2026-11-02"),
        )
        .unwrap();
        let json = serde_json::to_value(&kfs).unwrap();
        assert_eq!(json["installments"].as_array().unwrap().len(), 3);
        assert_eq!(json["installments"][0]["dueDate"], "2026-11-16");
        assert!(json["aprDisplay"].as_str().unwrap().ends_with('%'));
        assert_eq!(json["sanctionedAmount"], 1_000_000);
    }

    #[test]
    fn an_amount_outside_the_product_or_an_unknown_term_is_refused_with_a_reason() {
        let file = product("in-flexi-14d.toml");
        let err = key_fact_statement(&site(), &caps(), &file, 100, "14dx3", None).unwrap_err();
        assert!(format!("{err:#}").contains("cannot be quoted"));
        assert!(key_fact_statement(&site(), &caps(), &file, 1_000_000, "nope", None).is_err());
        assert!(
            key_fact_statement(
                &site(),
                &caps(),
                &file,
                1_000_000,
                "14dx3",
                Some("22/11/2026")
            )
            .is_err()
        );
    }
}
