//! Keyed hashes of the values that identify a borrower (`borrower_fingerprints`, migration 0035): the same PAN/NIK,
//! phone or bank account on two borrowers is found by an indexed equality, without decrypting anything.

use super::{Db, Tx};

/// One fingerprint to store: the certification field it comes from, its kind, and the keyed hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub field: &'static str,
    pub kind: &'static str,
    pub hash: String,
}

/// A value of a borrower found on another borrower.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct DuplicateRow {
    /// The field of the borrower looked at.
    pub field: String,
    pub kind: String,
    pub other_borrower_id: String,
    /// The field of the other borrower holding the same value.
    pub other_field: String,
    /// The other borrower's newest order, if they have one.
    pub other_order_no: Option<String>,
    pub other_market: String,
}

/// The most duplicates listed for one borrower.
const DUPLICATES_LIMIT: i64 = 50;

impl Tx {
    /// Replaces the borrower's fingerprints of these fields (a field whose value is now absent is given with no
    /// fingerprint by leaving it out of `fingerprints` and naming it in `fields`).
    pub async fn replace_fingerprints(
        &mut self,
        borrower_id: &str,
        fields: &[&str],
        fingerprints: &[Fingerprint],
    ) -> sqlx::Result<()> {
        for field in fields {
            sqlx::query("DELETE FROM borrower_fingerprints WHERE borrower_id = $1 AND field = $2")
                .bind(borrower_id)
                .bind(*field)
                .execute(self.conn())
                .await?;
        }
        for fp in fingerprints {
            sqlx::query(
                "INSERT INTO borrower_fingerprints (borrower_id, field, kind, hash) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (borrower_id, field) DO UPDATE SET kind = excluded.kind, hash = excluded.hash",
            )
            .bind(borrower_id)
            .bind(fp.field)
            .bind(fp.kind)
            .bind(&fp.hash)
            .execute(self.conn())
            .await?;
        }
        Ok(())
    }

    /// Erasure: the borrower's fingerprints go with the rest of their PII.
    pub async fn delete_fingerprints(&mut self, borrower_id: &str) -> sqlx::Result<u64> {
        Ok(
            sqlx::query("DELETE FROM borrower_fingerprints WHERE borrower_id = $1")
                .bind(borrower_id)
                .execute(self.conn())
                .await?
                .rows_affected(),
        )
    }
}

impl Db {
    /// The borrower's values found on other borrowers, by field then other borrower (at most 50).
    pub async fn duplicates_of(&self, borrower_id: &str) -> sqlx::Result<Vec<DuplicateRow>> {
        sqlx::query_as(
            "SELECT d.field, d.kind, d.other_borrower_id, d.other_field, b.market AS other_market,
                    (SELECT x.order_no FROM orders x WHERE x.borrower_id = d.other_borrower_id
                     ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS other_order_no
             FROM (SELECT f.field, f.kind, o.borrower_id AS other_borrower_id, o.field AS other_field
                   FROM borrower_fingerprints f
                   JOIN borrower_fingerprints o
                     ON o.kind = f.kind AND o.hash = f.hash AND o.borrower_id <> f.borrower_id
                   WHERE f.borrower_id = $1
                   ORDER BY f.field, o.borrower_id, o.field LIMIT $2) d
             JOIN borrowers b ON b.id = d.other_borrower_id
             ORDER BY d.field, d.other_borrower_id, d.other_field",
        )
        .bind(borrower_id)
        .bind(DUPLICATES_LIMIT)
        .fetch_all(self.pool())
        .await
    }

    /// Every stored hash (tests: no plaintext is kept).
    pub async fn fingerprints_of(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<(String, String, String)>> {
        sqlx::query_as(
            "SELECT field, kind, hash FROM borrower_fingerprints WHERE borrower_id = $1 ORDER BY field",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }
}

/// A borrower whose phone is still on file, for the backfill.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LiveBorrower {
    pub id: String,
    #[row(try_from = "String")]
    pub market: kilat_domain::Market,
    pub phone_enc: String,
}

impl Tx {
    /// Borrowers with a phone on file (not erased, not a development seed's placeholder), by id after `after`.
    pub async fn live_borrowers_after(
        &mut self,
        after: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<LiveBorrower>> {
        sqlx::query_as(
            "SELECT id, market, phone_enc FROM borrowers
             WHERE id > $1 AND deleted_at IS NULL AND phone_enc <> '' AND phone_enc <> 'seed'
             ORDER BY id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(self.conn())
        .await
    }

    /// The phone as lists show it, written with the encrypted one.
    pub async fn set_phone_masked(&mut self, borrower_id: &str, masked: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE borrowers SET phone_masked = $1 WHERE id = $2")
            .bind(masked)
            .bind(borrower_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }
}
