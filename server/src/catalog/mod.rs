//! The loan products on offer and their prices: the demo product files (`server/products/*.toml`, docs/MONEY.md §7),
//! embedded in the binary and validated at start-up, so a product that breaks a cap never reaches a borrower; and the
//! Key Fact Statement of a loan on one of them, worded for the borrower when the money rules refuse it.

pub mod quote;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use anyhow::Context;
use kilat_domain::{CapTable, KeyFactStatement, Lender, Market, Money, Product, quote_with_caps};
use rust_embed::RustEmbed;
use time::Date;

use crate::error::{Error, FieldProblem};
use crate::i18n::format_money;

#[derive(RustEmbed)]
#[folder = "products/"]
#[include = "*.toml"]
struct DemoProducts;

/// The products, checked, in a stable order: by market, then smallest amount.
pub struct Catalog {
    products: Vec<Product>,
    caps: CapTable,
    /// Each product's sample KFS (its smallest loan on its first term) for one business date: every list of products
    /// shows it, and it only changes with the date.
    samples: RwLock<HashMap<String, (Date, Arc<KeyFactStatement>)>>,
}

impl Catalog {
    /// Reads and validates every demo product as of `today`; any invalid file stops the start with its reason.
    pub fn demo(today: Date) -> anyhow::Result<Self> {
        let caps = CapTable::ojk_consumer();
        let mut products = Vec::new();
        for name in DemoProducts::iter() {
            let file =
                DemoProducts::get(&name).with_context(|| format!("reading product {name}"))?;
            let text =
                std::str::from_utf8(&file.data).with_context(|| format!("{name} is not UTF-8"))?;
            let product =
                Product::from_toml_str(text).with_context(|| format!("product file {name}"))?;
            product
                .validate(today, &caps)
                .with_context(|| format!("product file {name}"))?;
            products.push(product);
        }
        products.sort_by_key(|p| (p.market == Market::Indonesia, p.amount.min, p.code.clone()));
        Ok(Self {
            products,
            caps,
            samples: RwLock::default(),
        })
    }

    pub fn caps(&self) -> &CapTable {
        &self.caps
    }

    /// The products of one market.
    pub fn for_market(&self, market: Market) -> impl Iterator<Item = &Product> {
        self.products.iter().filter(move |p| p.market == market)
    }

    /// A product of this market by code; another market's product is as good as unknown.
    pub fn get(&self, market: Market, code: &str) -> Option<&Product> {
        self.for_market(market).find(|p| p.code == code)
    }

    /// The KFS of the product's smallest loan on its first term, disbursed on `date`: what a borrower compares
    /// products by. Computed once per product and business date.
    pub fn sample(
        &self,
        product: &Product,
        date: Date,
        lender: &Lender,
    ) -> Result<Arc<KeyFactStatement>, Error> {
        if let Some((day, kfs)) = self
            .samples
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&product.code)
            && *day == date
        {
            return Ok(kfs.clone());
        }
        let term = product
            .terms
            .first()
            .ok_or_else(|| anyhow::anyhow!("product {} has no term", product.code))?;
        let kfs = Arc::new(key_fact_statement(
            self,
            product,
            product.amount.min,
            &term.code,
            date,
            lender,
        )?);
        self.samples
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(product.code.clone(), (date, kfs.clone()));
        Ok(kfs)
    }
}

/// The sealed KFS of `amount` on `term` disbursed on `date`, naming `lender`. An amount outside the product's rules is
/// a field error worded in the market's money ("₹5,000.00", "Rp1.000.000"); a cap it would break is `cap_exceeded`.
pub fn key_fact_statement(
    catalog: &Catalog,
    product: &Product,
    amount: Money,
    term: &str,
    date: Date,
    lender: &Lender,
) -> Result<KeyFactStatement, Error> {
    let currency = product.market.currency();
    let quote = quote_with_caps(product, amount, term, date, catalog.caps()).map_err(|err| {
        let problem = match err {
            kilat_domain::Error::AmountOutOfRange { min, max, .. } => {
                FieldProblem::new("field.amount_out_of_range")
                    .with("min", format_money(min, currency))
                    .with("max", format_money(max, currency))
            }
            kilat_domain::Error::AmountNotOnStep { step, .. } => {
                FieldProblem::new("field.amount_not_on_step")
                    .with("step", format_money(step, currency))
            }
            other => return Error::Loan(other),
        };
        Error::field("amount", problem)
    })?;
    KeyFactStatement::new_with_caps(&quote, lender, catalog.caps()).map_err(Error::Loan)
}

#[cfg(test)]
mod tests {
    use kilat_domain::Money;

    use super::*;

    #[test]
    fn the_demo_products_load_and_span_the_marketing_copy_of_each_market() {
        let catalog = Catalog::demo(time::macros::date!(2026 - 11 - 22)).unwrap();
        let span = |market| {
            let min = catalog
                .for_market(market)
                .map(|p| p.amount.min)
                .min()
                .unwrap();
            let max = catalog
                .for_market(market)
                .map(|p| p.amount.max)
                .max()
                .unwrap();
            (min, max)
        };
        assert_eq!(
            span(Market::India),
            (Money::from_major(2_000), Money::from_major(80_000))
        );
        assert_eq!(
            span(Market::Indonesia),
            (Money::from_major(1_000_000), Money::from_major(15_000_000))
        );
        let first = catalog.for_market(Market::India).next().unwrap();
        assert!(catalog.get(Market::India, &first.code).is_some());
        assert!(
            catalog.get(Market::Indonesia, &first.code).is_none(),
            "another market's product is unknown"
        );
    }
}
