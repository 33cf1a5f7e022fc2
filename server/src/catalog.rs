//! The loan products on offer: the demo product files (`server/products/*.toml`, docs/MONEY.md §7), embedded in the
//! binary and validated at start-up, so a product that breaks a cap never reaches a borrower.

use anyhow::Context;
use kilat_domain::{CapTable, Market, Product};
use rust_embed::RustEmbed;
use time::Date;

#[derive(RustEmbed)]
#[folder = "products/"]
#[include = "*.toml"]
struct DemoProducts;

/// The products, checked, in a stable order: by market, then smallest amount.
pub struct Catalog {
    products: Vec<Product>,
    caps: CapTable,
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
        Ok(Self { products, caps })
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
