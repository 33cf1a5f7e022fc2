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
