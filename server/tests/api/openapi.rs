//! The OpenAPI document is generated from the code and the committed copy the web client uses must match it.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_served_document_lists_the_site_endpoints() {
    let app = spawn_app().await;
    let response = app.get("/api/v1/openapi.json").await;
    assert_eq!(response.status(), 200);
    let doc: serde_json::Value = response.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    assert!(doc["paths"]["/api/v1/site/settings"]["get"].is_object());
    assert!(doc["paths"]["/api/v1/site/contact-messages"]["post"].is_object());
    app.stop().await;
}

#[test]
fn the_committed_document_of_the_web_client_matches_the_code() {
    let committed_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../web/src/shared/api/openapi.json"
    );
    let committed = std::fs::read_to_string(committed_path)
        .expect("web/src/shared/api/openapi.json is committed");
    assert!(
        committed == kilat_server::http::openapi::document(),
        "web/src/shared/api/openapi.json is out of date: run `make openapi` and commit the result"
    );
}

/// The web client's generated types are keyed by operation id: two handlers with one id would silently give one
/// endpoint the other's types.
#[test]
fn operation_ids_are_unique() {
    let doc: serde_json::Value =
        serde_json::from_str(&kilat_server::http::openapi::document()).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if let Some(id) = operation["operationId"].as_str()
                && let Some(first) = seen.insert(id.to_owned(), format!("{method} {path}"))
            {
                panic!("operationId {id} is used by {first} and {method} {path}");
            }
        }
    }
    assert!(seen.len() > 20);
}

fn document() -> serde_json::Value {
    serde_json::from_str(&kilat_server::http::openapi::document()).unwrap()
}

/// The operations of the document, as (method path, operation).
fn operations(doc: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            out.push((format!("{method} {path}"), operation.clone()));
        }
    }
    out
}

#[test]
fn every_borrower_operation_behind_a_session_names_the_scheme_and_its_401() {
    let doc = document();
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["session_header"]["in"], "header");
    assert_eq!(schemes["session_header"]["name"], "X-Session-Id");
    assert_eq!(schemes["session_cookie"]["in"], "cookie");
    assert_eq!(schemes["session_cookie"]["name"], "kilat_session");
    let mut secured = Vec::new();
    for (name, operation) in operations(&doc) {
        // The console has its own schemes; providers' callbacks are verified by their signatures (webhooks.rs).
        if name.contains("/api/v1/console/") || name.contains("/api/v1/webhooks/") {
            continue;
        }
        let has_401 = operation["responses"]["401"].is_object();
        let security = operation["security"].as_array();
        assert_eq!(
            has_401,
            security.is_some(),
            "{name}: a 401 and a security requirement go together"
        );
        if let Some(security) = security {
            // Only the native shell's own session hands over to the web app: a cookie session is refused there.
            let expected = if name.ends_with("/api/v1/borrower/session/handover") {
                vec![serde_json::json!({"session_header": []})]
            } else {
                vec![
                    serde_json::json!({"session_header": []}),
                    serde_json::json!({"session_cookie": []}),
                ]
            };
            assert_eq!(security, &expected, "{name}");
            secured.push(name);
        }
    }
    // logout, me, the verification code, the session hand-over, three product and quote operations, four certification, nine home, apply and
    // order operations, twelve servicing operations (plan, repayment, payments and the loan's list of them, UTR and its
    // correction, extension, rating), ten telemetry
    // operations (buried points, events, errors, device and its withdrawal, device token, location, its status and its
    // withdrawal, app rating), eleven of
    // customer service (customer service, FAQ, complaint init, image upload, the waiting uploads, read and delete,
    // save, list, detail, score), seven of the account (menu, deletion check and delete, export, the two PDFs, the no-dues certificate);
    // the borrower's reply to a complaint (issue 19 item 13).
    assert_eq!(secured.len(), 61, "{secured:?}");
    assert!(secured.contains(&"post /api/v1/borrower/session/handover".to_owned()));
    assert!(secured.contains(&"post /api/v1/borrower/orders/{orderNo}/cancel".to_owned()));
    assert!(secured.contains(&"post /api/v1/borrower/apply/agreement".to_owned()));
    assert!(secured.contains(&"get /api/v1/borrower/orders/{orderNo}/agreement".to_owned()));
}

#[test]
fn every_console_operation_but_login_names_the_cookie_its_401_and_its_403_and_unsafe_ones_the_csrf_header()
 {
    let doc = document();
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["console_cookie"]["in"], "cookie");
    assert_eq!(schemes["console_cookie"]["name"], "kilat_console");
    assert_eq!(schemes["csrf_header"]["in"], "header");
    assert_eq!(schemes["csrf_header"]["name"], "X-CSRF-Token");
    let mut secured = Vec::new();
    for (name, operation) in operations(&doc) {
        if !name.contains("/api/v1/console/") {
            continue;
        }
        assert!(
            operation["operationId"]
                .as_str()
                .unwrap()
                .starts_with("console_"),
            "{name}"
        );
        if name == "post /api/v1/console/login" {
            assert!(operation["security"].is_null(), "{name}");
            assert!(
                operation["responses"]["429"].is_object(),
                "{name}: the lockout"
            );
            continue;
        }
        let expected = if !name.starts_with("get ") {
            serde_json::json!([{"console_cookie": [], "csrf_header": []}])
        } else {
            serde_json::json!([{"console_cookie": []}])
        };
        assert_eq!(operation["security"], expected, "{name}");
        assert!(operation["responses"]["401"].is_object(), "{name}");
        // Every console operation but `me` can be refused: by role, or (unsafe ones) by the CSRF check.
        if name != "get /api/v1/console/me" {
            assert!(operation["responses"]["403"].is_object(), "{name}");
        }
        secured.push(name);
    }
    // Fourteen of review, payouts and repayments (with resolving a held payment and recording a refund); eleven of the admins' products and operators; the dashboard; twelve of
    // support: complaints (queue, detail, reply, close, image), contact messages (list, handled) and the FAQ (list,
    // create, update, move, delete); two of the site's claims (list, update). Issue 18: three of review (the queue's
    // counts, claim, release); the product preview and the audit export; five of payout operations (bank file, bank
    // result, approve and reject a recorded payout, month-end exports); two more of the repayments queue (counts,
    // export) and eight of reconciliation (layouts list, create, update; preview; imports list, import, one, confirm); six of
    // collections (queue, case, history, contacts, promises, phone); an operator's markets and one's own password.
    // Issue 18 item 11: six of support (assign, the assignees, the canned replies' list, create, update, delete).
    // Putting an order in a downloaded bank file back for the next one; saying one is sending a refund.
    assert_eq!(secured.len(), 79, "{secured:?}");
}

#[test]
fn every_operation_documents_500_and_every_body_its_400_413_and_415_in_the_envelope() {
    let doc = document();
    for (name, operation) in operations(&doc) {
        let responses = &operation["responses"];
        let mut expected = vec!["500"];
        if operation["requestBody"].is_object() {
            expected.extend(["400", "413", "415"]);
        }
        for status in expected {
            assert_eq!(
                responses[status]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ErrorBody",
                "{name} {status}"
            );
        }
    }
}

#[test]
fn the_kfs_is_typed_with_integer_money_and_closed_sets_as_enums() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["Money"]["type"], "integer");
    assert_eq!(schemas["Money"]["format"], "int64");
    assert_eq!(schemas["Market"]["enum"], serde_json::json!(["IN", "ID"]));
    assert_eq!(
        schemas["Currency"]["enum"],
        serde_json::json!(["INR", "IDR"])
    );
    assert_eq!(
        schemas["Step"]["enum"],
        serde_json::json!(["base", "personal", "job", "extended", "bank"])
    );
    assert_eq!(schemas["OrderState"]["enum"].as_array().unwrap().len(), 8);
    let kfs = &schemas["KeyFactStatement"];
    assert_eq!(
        kfs["properties"]["sanctionedAmount"]["$ref"],
        "#/components/schemas/Money"
    );
    assert_eq!(
        kfs["required"].as_array().unwrap().len(),
        kfs["properties"].as_object().unwrap().len()
    );
    let late = &schemas["LateCharge"]["properties"];
    assert!(
        late["perDay"].is_object() && late["maxDays"].is_object(),
        "{late}"
    );
    assert_eq!(
        doc["paths"]["/api/v1/borrower/quote"]["post"]["responses"]["200"]["content"]["application/json"]
            ["schema"]["$ref"],
        "#/components/schemas/Envelope_KeyFactStatement"
    );
    // The development outbox lists every code: it is not part of the contract.
    assert!(doc["paths"]["/api/v1/dev/outbox"].is_null());
}

#[tokio::test]
async fn a_malformed_query_string_is_a_400_in_the_envelope() {
    let app = spawn_app().await;
    let response = app.get("/api/v1/borrower/enums?market=IN&market=ID").await;
    assert_eq!(response.status(), 400);
    let body = crate::helpers::error(response).await;
    assert_eq!(body["code"], "bad_request");
    assert!(
        body["fields"]["body"]
            .as_str()
            .unwrap()
            .contains("duplicate field `market`"),
        "{body}"
    );
    app.stop().await;
}

/// JSON Schema's `integer` includes `500000.0`; a client library may write a whole amount that way.
#[tokio::test]
async fn an_amount_with_a_zero_fraction_is_read_as_a_whole_number_and_a_fraction_is_a_400() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let products =
        crate::helpers::data(app.get_as("/api/v1/borrower/products", &session).await).await;
    let product = &products[0];
    let min = product["amount"]["min"].as_i64().unwrap();
    let quote = |amount: serde_json::Value| serde_json::json!({"productCode": product["code"], "termCode": product["terms"][0]["code"], "amount": amount});
    let whole = app
        .post_as(
            "/api/v1/borrower/quote",
            &session,
            &quote(serde_json::json!(min as f64)),
        )
        .await;
    assert_eq!(whole.status(), 200);
    assert_eq!(crate::helpers::data(whole).await["sanctionedAmount"], min);
    let fraction = app
        .post_as(
            "/api/v1/borrower/quote",
            &session,
            &quote(serde_json::json!(min as f64 + 0.5)),
        )
        .await;
    assert_eq!(fraction.status(), 400);
    assert_eq!(crate::helpers::error(fraction).await["code"], "bad_request");
    app.stop().await;
}

#[test]
fn the_market_is_a_required_query_parameter_whose_malformed_string_is_documented_as_400() {
    let doc = document();
    for path in [
        "/api/v1/borrower/login/init",
        "/api/v1/borrower/enums",
        "/api/v1/borrower/cities",
    ] {
        let operation = &doc["paths"][path]["get"];
        let market = &operation["parameters"][0];
        assert_eq!(market["name"], "market", "{path}");
        assert_eq!(market["in"], "query", "{path}");
        assert_eq!(market["required"], true, "{path}");
        assert_eq!(
            market["schema"]["$ref"], "#/components/schemas/Market",
            "{path}"
        );
        assert!(operation["responses"]["400"].is_object(), "{path}");
    }
}
