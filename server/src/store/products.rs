//! Loan products: each code's current version and whether it is offered (`products`), every version's definition
//! (`product_versions`, append-only), and the catalog's version counter (`catalog_state`) every change moves.

use kilat_domain::{Code, Product};

use super::{Db, Tx};

/// A product's current version as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StoredProduct {
    pub code: String,
    pub market: String,
    pub version: i64,
    pub disabled_at: Option<i64>,
    pub updated_at: i64,
    /// The version's definition: `kilat_domain::Product` as JSON.
    pub definition: String,
}

/// A demo product to seed.
pub struct SeedProduct {
    pub product: Product,
    pub definition: String,
}

/// A product code already in use.
#[derive(Debug)]
pub struct CodeTaken;

const CURRENT: &str =
    "SELECT p.code, p.market, p.version, p.disabled_at, p.updated_at, v.definition
     FROM products p JOIN product_versions v ON v.code = p.code AND v.version = p.version";

impl Db {
    pub async fn count_products(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM products")
            .fetch_one(self.pool())
            .await
    }

    /// Inserts the demo products as version 1 when the table is empty. Several servers starting at once may all see
    /// it empty: each insert is `ON CONFLICT DO NOTHING` on the code, so the products land once (on PostgreSQL the
    /// second waits for the first's commit, then inserts nothing). Returns how many products this call inserted.
    pub async fn seed_products(&self, seeds: &[SeedProduct], now: i64) -> sqlx::Result<u64> {
        let mut tx = self.begin().await?;
        let mut inserted = 0;
        for seed in seeds {
            let done = sqlx::query(
                "INSERT INTO products (code, market, version, updated_at) VALUES ($1, $2, 1, $3)
                 ON CONFLICT (code) DO NOTHING",
            )
            .bind(&seed.product.code)
            .bind(seed.product.market.code())
            .bind(now)
            .execute(tx.conn())
            .await?
            .rows_affected();
            if done == 0 {
                continue;
            }
            inserted += done;
            sqlx::query(
                "INSERT INTO product_versions (code, version, definition, created_at) VALUES ($1, 1, $2, $3)
                 ON CONFLICT (code, version) DO NOTHING",
            )
            .bind(&seed.product.code)
            .bind(&seed.definition)
            .bind(now)
            .execute(tx.conn())
            .await?;
        }
        if inserted > 0 {
            tx.bump_catalog_version().await?;
        }
        tx.commit().await?;
        Ok(inserted)
    }

    /// The catalog's version counter.
    pub async fn catalog_version(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT version FROM catalog_state WHERE id = 1")
            .fetch_one(self.pool())
            .await
    }

    /// The counter and every product's current version (enabled or not), by code, read in one transaction so the
    /// counter never runs ahead of the products read.
    pub async fn stored_products(&self) -> sqlx::Result<(i64, Vec<StoredProduct>)> {
        let mut tx = self.begin_read().await?;
        let version = sqlx::query_scalar("SELECT version FROM catalog_state WHERE id = 1")
            .fetch_one(tx.conn())
            .await?;
        let rows = sqlx::query_as(&format!("{CURRENT} ORDER BY p.code"))
            .fetch_all(tx.conn())
            .await?;
        tx.commit().await?;
        Ok((version, rows))
    }

    /// A product's current version by code.
    pub async fn stored_product(&self, code: &str) -> sqlx::Result<Option<StoredProduct>> {
        sqlx::query_as(&format!("{CURRENT} WHERE p.code = $1"))
            .bind(code)
            .fetch_optional(self.pool())
            .await
    }

    /// One version's definition.
    pub async fn product_definition(
        &self,
        code: &str,
        version: i64,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "SELECT definition FROM product_versions WHERE code = $1 AND version = $2",
        )
        .bind(code)
        .bind(version)
        .fetch_optional(self.pool())
        .await
    }

    /// The product version an order was made on (NULL before products were stored: the seed, version 1).
    pub async fn order_product_version(&self, order_id: &str) -> sqlx::Result<Option<i64>> {
        sqlx::query_scalar::<_, Option<i64>>("SELECT product_version FROM orders WHERE id = $1")
            .bind(order_id)
            .fetch_optional(self.pool())
            .await
            .map(Option::flatten)
    }
}

impl Tx {
    /// Moves the catalog's version counter, so every server reloads its products.
    pub async fn bump_catalog_version(&mut self) -> sqlx::Result<()> {
        sqlx::query("UPDATE catalog_state SET version = version + 1 WHERE id = 1")
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// A product's current version, locked until the transaction ends (PostgreSQL; SQLite's transaction holds the
    /// write lock already).
    pub async fn product_for_update(&mut self, code: &str) -> sqlx::Result<Option<StoredProduct>> {
        // The product's row is locked first and its current version read after: locked together in one statement,
        // PostgreSQL re-checks a row another edit changed meanwhile against the version joined before the wait,
        // finds it no longer matches, and answers no product at all.
        let locked: Option<String> = sqlx::query_scalar(&format!(
            "SELECT code FROM products WHERE code = $1{}",
            self.lock_clause()
        ))
        .bind(code)
        .fetch_optional(self.conn())
        .await?;
        if locked.is_none() {
            return Ok(None);
        }
        sqlx::query_as(&format!("{CURRENT} WHERE p.code = $1"))
            .bind(code)
            .fetch_optional(self.conn())
            .await
    }

    /// A new product as version 1; `Err(CodeTaken)` when the code is in use (the primary key refuses it: the
    /// transaction is then spoilt on PostgreSQL and the caller drops it).
    pub async fn insert_product(
        &mut self,
        product: &Product,
        definition: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<Result<(), CodeTaken>> {
        let inserted = sqlx::query(
            "INSERT INTO products (code, market, version, updated_at) VALUES ($1, $2, 1, $3)",
        )
        .bind(&product.code)
        .bind(product.market.code())
        .bind(now)
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => return Ok(Err(CodeTaken)),
            Err(e) => return Err(e),
        }
        self.insert_product_version(&product.code, 1, definition, operator_id, now)
            .await?;
        Ok(Ok(()))
    }

    /// Writes `version` of a product and makes it the current one (the caller holds the product's lock).
    pub async fn write_product_version(
        &mut self,
        code: &str,
        version: i64,
        definition: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        self.insert_product_version(code, version, definition, operator_id, now)
            .await?;
        sqlx::query("UPDATE products SET version = $1, updated_at = $2 WHERE code = $3")
            .bind(version)
            .bind(now)
            .bind(code)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    async fn insert_product_version(
        &mut self,
        code: &str,
        version: i64,
        definition: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO product_versions (code, version, definition, created_at, created_by)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(code)
        .bind(version)
        .bind(definition)
        .bind(now)
        .bind(operator_id)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Offers a product again (`disabled_at` NULL) or stops offering it.
    pub async fn set_product_disabled(
        &mut self,
        code: &str,
        disabled_at: Option<i64>,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE products SET disabled_at = $1, updated_at = $2 WHERE code = $3")
            .bind(disabled_at)
            .bind(now)
            .bind(code)
            .execute(self.conn())
            .await?;
        Ok(())
    }
}
