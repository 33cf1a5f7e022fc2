//! The loan products on offer and their prices: products stored in the database, versioned (an edit writes a new
//! version; an order keeps the version it was made on), seeded from the demo product files (`server/products/*.toml`,
//! docs/MONEY.md §7) when there are none, validated against the cap table of the settings so a product that breaks a
//! cap never reaches a borrower; the admins' edits (`admin.rs`); and the Key Fact Statement of a loan on one of them,
//! worded for the borrower when the money rules refuse it.

pub mod admin;
pub mod quote;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use anyhow::Context;
use kilat_domain::{CapTable, KeyFactStatement, Lender, Market, Money, Product, quote_with_caps};
use rust_embed::RustEmbed;
use time::Date;

use crate::error::{Error, FieldProblem};
use crate::i18n::format_money;
use crate::settings::CapSettings;
use crate::store::Db;
use crate::store::products::{SeedProduct, StoredProduct};

/// The folder's `.toml` files (picked in [`demo_products`]: rust-embed's own `include` filter compiles a glob engine
/// into the binary).
#[derive(RustEmbed)]
#[folder = "products/"]
struct DemoProducts;

/// How often a server reads the catalog's version counter to notice another server's edit.
pub const REFRESH_EVERY_MS: i64 = 2_000;

/// A product as offered: its definition and the stored version it is.
#[derive(Debug)]
pub struct Listed {
    pub product: Product,
    pub version: i64,
}

impl std::ops::Deref for Listed {
    type Target = Product;

    fn deref(&self) -> &Product {
        &self.product
    }
}

/// One load of the products: what is on offer, at one catalog version.
struct Snapshot {
    /// The catalog's version counter when loaded (`catalog_state`).
    version: i64,
    /// Enabled products, in a stable order: by market, then smallest amount.
    products: Vec<Arc<Listed>>,
    /// Each product's sample KFS (its smallest loan on its first term) for one business date: every list of products
    /// shows it, and it only changes with the date (or the product, which makes a new snapshot).
    samples: RwLock<HashMap<String, (Date, Arc<KeyFactStatement>)>>,
}

/// The products on offer, reloaded from the database when its version counter moves.
pub struct Catalog {
    caps: CapTable,
    /// The shortest cooling-off a product may have (settings `caps.min_cooling_off_days`, at least the law's 3).
    min_cooling_off_days: u32,
    current: RwLock<Arc<Snapshot>>,
    /// When this server last read the version counter (epoch ms).
    checked_at: AtomicI64,
}

/// The demo product files, parsed (each file's name and its product).
pub fn demo_products() -> anyhow::Result<Vec<Product>> {
    let mut products = Vec::new();
    for name in DemoProducts::iter().filter(|name| name.ends_with(".toml")) {
        let file = DemoProducts::get(&name).with_context(|| format!("reading product {name}"))?;
        let text =
            std::str::from_utf8(&file.data).with_context(|| format!("{name} is not UTF-8"))?;
        products
            .push(Product::from_toml_str(text).with_context(|| format!("product file {name}"))?);
    }
    Ok(products)
}

impl Catalog {
    /// Seeds the database with the demo products when it has none (idempotent, also with several servers starting at
    /// once), then loads what it holds. A demo file that breaks the caps stops the start with its reason; a stored
    /// product that breaks them (the caps changed since) is left out of the offer, with a warning.
    pub async fn load(
        db: &Db,
        settings: &CapSettings,
        today: Date,
        now_ms: i64,
    ) -> anyhow::Result<Self> {
        let caps = settings.indonesia.clone();
        let catalog = Self {
            caps,
            min_cooling_off_days: settings.min_cooling_off_days,
            current: RwLock::new(Arc::new(Snapshot {
                version: -1,
                products: Vec::new(),
                samples: RwLock::default(),
            })),
            checked_at: AtomicI64::new(0),
        };
        if db.count_products().await? == 0 {
            let mut seeds = Vec::new();
            for product in demo_products()? {
                catalog
                    .validate(&product, today)
                    .map_err(|e| anyhow::anyhow!("product file {}: {e}", product.code))?;
                seeds.push(SeedProduct {
                    definition: serde_json::to_string(&product)?,
                    product,
                });
            }
            let inserted = db.seed_products(&seeds, now_ms).await?;
            if inserted > 0 {
                tracing::info!(inserted, "seeded the loan products from the demo files");
            }
        }
        catalog.reload(db, today).await?;
        catalog.checked_at.store(now_ms, Ordering::Relaxed);
        Ok(catalog)
    }

    /// Checks a product against the rules and the caps as of `on` (every term at both ends of the amount range).
    pub fn validate(&self, product: &Product, on: Date) -> Result<(), kilat_domain::Error> {
        if product.cooling_off_days < self.min_cooling_off_days {
            return Err(kilat_domain::Error::InvalidProduct {
                product: product.code.clone(),
                reason: format!(
                    "cooling-off must be at least {} days",
                    self.min_cooling_off_days
                ),
            });
        }
        product.validate(on, &self.caps)
    }

    /// Reads every stored product and makes the enabled ones, that pass their checks, the offer.
    pub async fn reload(&self, db: &Db, today: Date) -> anyhow::Result<()> {
        let (version, stored) = db.stored_products().await?;
        let mut products = Vec::new();
        for row in stored {
            if row.disabled_at.is_some() {
                continue;
            }
            let product = parse(&row)?;
            if let Err(e) = self.validate(&product, today) {
                tracing::warn!(product = %row.code, version = row.version, "not offered: {e}");
                continue;
            }
            products.push(Arc::new(Listed {
                product,
                version: row.version,
            }));
        }
        products.sort_by_key(|p| (p.market == Market::Indonesia, p.amount.min, p.code.clone()));
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(Snapshot {
            version,
            products,
            samples: RwLock::default(),
        });
        Ok(())
    }

    /// Reloads when the database's catalog version differs from the one loaded, reading the counter at most every
    /// `REFRESH_EVERY_MS` (unless `force`). The server's timer calls it; an edit calls it with `force`.
    pub async fn refresh(
        &self,
        db: &Db,
        today: Date,
        now_ms: i64,
        force: bool,
    ) -> anyhow::Result<bool> {
        let last = self.checked_at.load(Ordering::Relaxed);
        if !force && now_ms - last < REFRESH_EVERY_MS {
            return Ok(false);
        }
        self.checked_at.store(now_ms, Ordering::Relaxed);
        let stored = db.catalog_version().await?;
        if stored == self.version() {
            return Ok(false);
        }
        self.reload(db, today).await?;
        Ok(true)
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The catalog version loaded: part of the key of anything cached from the products.
    pub fn version(&self) -> i64 {
        self.snapshot().version
    }

    pub fn caps(&self) -> &CapTable {
        &self.caps
    }

    /// The products on offer in one market.
    pub fn for_market(&self, market: Market) -> Vec<Arc<Listed>> {
        self.snapshot()
            .products
            .iter()
            .filter(|p| p.market == market)
            .cloned()
            .collect()
    }

    /// A product on offer in this market by code; another market's (or a disabled) product is as good as unknown.
    pub fn get(&self, market: Market, code: &str) -> Option<Arc<Listed>> {
        self.snapshot()
            .products
            .iter()
            .find(|p| p.market == market && p.code == code)
            .cloned()
    }

    /// The KFS of the product's smallest loan on its first term, disbursed on `date`: what a borrower compares
    /// products by. Computed once per product, catalog version and business date.
    pub fn sample(
        &self,
        product: &Product,
        date: Date,
        lender: &Lender,
    ) -> Result<Arc<KeyFactStatement>, Error> {
        let snapshot = self.snapshot();
        if let Some((day, kfs)) = snapshot
            .samples
            .read()
            .unwrap_or_else(PoisonError::into_inner)
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
            &self.caps,
            product,
            product.amount.min,
            &term.code,
            date,
            lender,
        )?);
        snapshot
            .samples
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(product.code.clone(), (date, kfs.clone()));
        Ok(kfs)
    }
}

/// A stored product's definition.
pub(crate) fn parse(row: &StoredProduct) -> anyhow::Result<Product> {
    serde_json::from_str(&row.definition)
        .with_context(|| format!("stored product {} version {}", row.code, row.version))
}

/// The sealed KFS of `amount` on `term` disbursed on `date`, naming `lender`. An amount outside the product's rules is
/// a field error worded in the market's money ("₹5,000.00", "Rp1.000.000"); a cap it would break is `cap_exceeded`.
pub fn key_fact_statement(
    caps: &CapTable,
    product: &Product,
    amount: Money,
    term: &str,
    date: Date,
    lender: &Lender,
) -> Result<KeyFactStatement, Error> {
    let currency = product.market.currency();
    let quote = quote_with_caps(product, amount, term, date, caps).map_err(|err| {
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
    KeyFactStatement::new_with_caps(&quote, lender, caps).map_err(Error::Loan)
}
