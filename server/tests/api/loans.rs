//! Products and the Key Fact Statement quote, for the signed-in borrower's market only.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{data, error, spawn_app};

#[tokio::test]
async fn products_need_a_session_and_show_only_the_borrowers_market_with_a_sample_cost() {
    let app = spawn_app().await;
    assert_eq!(
        app.get("/api/v1/borrower/products").await.status(),
        StatusCode::UNAUTHORIZED
    );

    let india = app.sign_in("IN", "9876543210").await;
    let products = data(app.get_as("/api/v1/borrower/products", &india).await).await;
    let products = products.as_array().unwrap();
    assert!(products.len() >= 2);
    assert!(products.iter().all(|p| p["currency"] == "INR"));
    let mins: Vec<i64> = products
        .iter()
        .map(|p| p["amount"]["min"].as_i64().unwrap())
        .collect();
    assert!(
        mins.windows(2).all(|w| w[0] <= w[1]),
        "smallest first: {mins:?}"
    );
    assert_eq!(
        mins[0], 200_000,
        "₹2,000 in paise, as the marketing copy says"
    );
    let sample = &products[0]["sample"];
    assert_eq!(sample["amount"], products[0]["amount"]["min"]);
    assert!(sample["totalRepayable"].as_i64().unwrap() > sample["amount"].as_i64().unwrap());
    assert!(sample["aprDisplay"].as_str().unwrap().ends_with('%'));

    let indonesia = app.sign_in("ID", "081234567890").await;
    let theirs = data(app.get_as("/api/v1/borrower/products", &indonesia).await).await;
    assert!(
        theirs
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["currency"] == "IDR")
    );
    let indian_code = products[0]["code"].as_str().unwrap();
    let other_market = app
        .get_as(
            &format!("/api/v1/borrower/products/{indian_code}"),
            &indonesia,
        )
        .await;
    assert_eq!(
        other_market.status(),
        StatusCode::NOT_FOUND,
        "another market's product is not found"
    );
    let own = data(
        app.get_as(&format!("/api/v1/borrower/products/{indian_code}"), &india)
            .await,
    )
    .await;
    assert_eq!(own["code"], indian_code);
    app.stop().await;
}

#[tokio::test]
async fn a_quote_is_the_full_key_fact_statement_and_its_installments_add_up() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let kfs = data(
        app.post_as(
            "/api/v1/borrower/quote",
            &session,
            &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"}),
        )
        .await,
    )
    .await;
    assert_eq!(kfs["sanctionedAmount"], 2_000_000);
    assert_eq!(kfs["currency"], "INR");
    let installments = kfs["installments"].as_array().unwrap();
    assert_eq!(installments.len(), 6);
    let sum: i64 = installments
        .iter()
        .map(|i| i["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(sum, kfs["totalRepayable"].as_i64().unwrap());
    assert!(installments.iter().all(|i| i["dueDate"].is_string()));
    assert!(
        kfs["fees"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["tax"].as_i64().unwrap() > 0),
        "18% GST on fees in India"
    );
    assert!(
        kfs["apr"].as_i64().unwrap() > 2400,
        "fees make the APR higher than the 24% nominal rate"
    );
    assert_eq!(
        kfs["lender"]["name"],
        "Kilat Finance Private Limited (NBFC)"
    );
    assert!(kfs["lender"]["grievanceOfficer"]["email"].is_string());
    assert_eq!(kfs["contentHash"].as_str().unwrap().len(), 64);
    app.stop().await;
}

#[tokio::test]
async fn a_quote_outside_the_product_names_the_field_at_fault() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let cases = [
        (
            json!({"productCode": "in-flexi-6m", "amount": 100, "termCode": "m6"}),
            "amount",
        ),
        (
            json!({"productCode": "in-flexi-6m", "amount": 2_000_050, "termCode": "m6"}),
            "amount",
        ),
        (
            json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m7"}),
            "termCode",
        ),
        (
            json!({"productCode": "nope", "amount": 2_000_000, "termCode": "m6"}),
            "productCode",
        ),
        (
            json!({"productCode": "id-kilat-30", "amount": 200_000_000, "termCode": "30d"}),
            "productCode",
        ),
    ];
    for (body, field) in cases {
        let response = app.post_as("/api/v1/borrower/quote", &session, &body).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
        let err = error(response).await;
        assert_eq!(err["code"], "validation_failed", "{body}");
        assert!(err["fields"][field].is_string(), "{body} → {err}");
    }
    let empty = error(
        app.post_as("/api/v1/borrower/quote", &session, &json!({}))
            .await,
    )
    .await;
    let named: Vec<&str> = empty["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(named, ["amount", "productCode", "termCode"]);
    let unauthenticated = app.post_json("/api/v1/borrower/quote", &json!({})).await;
    assert_eq!(unauthenticated.status(), StatusCode::UNAUTHORIZED);
    app.stop().await;
}
