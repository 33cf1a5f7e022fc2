//! The site's claims per market (migration 0022): read by every server's timer, seeded once, edited under a row lock.

use super::{Db, Tx};

/// One market's claims as stored.
#[derive(Debug, Clone, PartialEq, Eq, kilat_row::FromRow)]
pub struct StoredClaims {
    /// `IN` or `ID`.
    pub market: String,
    pub payout_claim: String,
    pub users_claim: String,
    pub updated_at: i64,
    /// The username of the operator who last edited them; `None` while they are the settings' seed.
    pub updated_by: Option<String>,
}

/// A market's claims as the settings file gives them, stored when the market has none yet.
pub struct SeedClaims<'a> {
    pub market: &'a str,
    pub payout_claim: &'a str,
    pub users_claim: &'a str,
}

const COLUMNS: &str =
    "c.market, c.payout_claim, c.users_claim, c.updated_at, o.username AS updated_by";

impl Db {
    /// Stores each market's seed unless the market has claims already. Servers starting at once may both try: the
    /// insert is `ON CONFLICT DO NOTHING` on the market, so one lands and nothing already there (an admin's edit)
    /// is ever overwritten. Returns how many markets this call seeded.
    pub async fn seed_site_claims(&self, seeds: &[SeedClaims<'_>], now: i64) -> sqlx::Result<u64> {
        let mut inserted = 0;
        for seed in seeds {
            inserted += sqlx::query(
                "INSERT INTO site_claims (market, payout_claim, users_claim, updated_at, updated_by)
                 VALUES ($1, $2, $3, $4, NULL)
                 ON CONFLICT (market) DO NOTHING",
            )
            .bind(seed.market)
            .bind(seed.payout_claim)
            .bind(seed.users_claim)
            .bind(now)
            .execute(self.pool())
            .await?
            .rows_affected();
        }
        Ok(inserted)
    }

    /// Every market's claims, by market.
    pub async fn site_claims(&self) -> sqlx::Result<Vec<StoredClaims>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM site_claims c LEFT JOIN operators o ON o.id = c.updated_by ORDER BY c.market"
        ))
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// One market's claims, locked until the transaction ends (PostgreSQL; SQLite's transaction holds the write lock).
    pub async fn site_claims_locked(&mut self, market: &str) -> sqlx::Result<Option<StoredClaims>> {
        // The lock is taken on the claims' row alone: PostgreSQL refuses FOR UPDATE on the nullable side of a join.
        let sql = format!(
            "SELECT market FROM site_claims WHERE market = $1{}",
            self.lock_clause()
        );
        let locked: Option<String> = sqlx::query_scalar(&sql)
            .bind(market)
            .fetch_optional(self.conn())
            .await?;
        if locked.is_none() {
            return Ok(None);
        }
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM site_claims c LEFT JOIN operators o ON o.id = c.updated_by WHERE c.market = $1"
        ))
        .bind(market)
        .fetch_optional(self.conn())
        .await
    }

    /// Writes one market's claims; false when the market has no row.
    pub async fn update_site_claims(
        &mut self,
        market: &str,
        payout_claim: &str,
        users_claim: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE site_claims SET payout_claim = $2, users_claim = $3, updated_at = $4, updated_by = $5
             WHERE market = $1",
        )
        .bind(market)
        .bind(payout_claim)
        .bind(users_claim)
        .bind(now)
        .bind(operator_id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }
}
