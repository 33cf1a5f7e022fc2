//! The derive against real rows of sqlx's `Any` driver (an in-memory SQLite database).

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, FromRow};

#[derive(Debug, PartialEq)]
struct Market(&'static str);

#[derive(Debug, PartialEq)]
struct UnknownMarket(String);

impl std::fmt::Display for UnknownMarket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown market {:?}", self.0)
    }
}

impl std::error::Error for UnknownMarket {}

impl TryFrom<String> for Market {
    type Error = UnknownMarket;
    fn try_from(code: String) -> Result<Self, Self::Error> {
        match code.as_str() {
            "IN" => Ok(Market("IN")),
            "ID" => Ok(Market("ID")),
            _ => Err(UnknownMarket(code)),
        }
    }
}

#[derive(Debug, PartialEq, kilat_row::FromRow)]
struct Session {
    id: i64,
    #[row(rename = "session_created_at")]
    created_at: String,
}

#[derive(Debug, PartialEq, kilat_row::FromRow)]
struct Borrower {
    name: Option<String>,
    #[row(try_from = "String")]
    market: Market,
    #[row(flatten)]
    session: Session,
    r#type: i64,
}

async fn pool() -> AnyPool {
    install_default_drivers();
    AnyPoolOptions::new()
        .max_connections(1)
        .connect("sqlite::memory:")
        .await
        .expect("in-memory SQLite")
}

#[tokio::test(flavor = "current_thread")]
async fn fields_renames_conversions_and_flattened_rows_read_their_columns() {
    let pool = pool().await;
    let row: Borrower = sqlx::query_as(
        "SELECT 'IN' AS market, 7 AS id, NULL AS name, '2026-12-02' AS session_created_at, 3 AS type, 'x' AS created_at",
    )
    .fetch_one(&pool)
    .await
    .expect("the row maps");
    assert_eq!(
        row,
        Borrower {
            name: None,
            market: Market("IN"),
            session: Session {
                id: 7,
                created_at: "2026-12-02".into()
            },
            r#type: 3,
        }
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_failed_conversion_names_its_column() {
    let pool = pool().await;
    let err = sqlx::query_as::<_, Borrower>(
        "SELECT 'XX' AS market, 7 AS id, 'A' AS name, '2026-12-02' AS session_created_at, 3 AS type",
    )
    .fetch_one(&pool)
    .await
    .expect_err("XX is no market");
    match err {
        sqlx::Error::ColumnDecode { index, source } => {
            assert_eq!(index, "market");
            assert_eq!(source.to_string(), "unknown market \"XX\"");
        }
        other => panic!("expected ColumnDecode, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_column_is_an_error_not_a_default() {
    let pool = pool().await;
    let row = sqlx::query("SELECT 'IN' AS market, 7 AS id, 'A' AS name, 3 AS type")
        .fetch_one(&pool)
        .await
        .unwrap();
    match Borrower::from_row(&row) {
        Err(sqlx::Error::ColumnNotFound(column)) => assert_eq!(column, "session_created_at"),
        other => panic!("expected ColumnNotFound, got {other:?}"),
    }
}
