//! One company per market (PRODUCT.md §5): what an Indonesian borrower is shown never names the Indian lender, its
//! grievance officer, its +91 numbers or its Bengaluru address, and the other way round; production refuses the
//! demo's example e-mail domain.

use std::process::Command;

use kilat_server::settings::{Company, Settings};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};

/// Every value of a market's company, plus what gives a market away at a glance.
fn markers(company: &Company, country: [&'static str; 2]) -> Vec<String> {
    let o = &company.grievance_officer;
    [
        &company.lender_name,
        &company.licence,
        &company.email,
        &company.address,
        &company.copyright,
        &company.service_phone,
        &company.whatsapp_number,
        &o.name,
        &o.email,
        &o.phone,
    ]
    .into_iter()
    .cloned()
    .chain(country.map(String::from))
    .collect()
}

fn india_markers() -> Vec<String> {
    let settings = Settings::load(None).unwrap();
    markers(&settings.site.markets.india, ["+91", "Bengaluru"])
}

fn indonesia_markers() -> Vec<String> {
    let settings = Settings::load(None).unwrap();
    markers(&settings.site.markets.indonesia, ["+62", "Jakarta"])
}

#[track_caller]
fn assert_names_none(text: &str, foreign: &[String], what: &str) {
    for marker in foreign {
        assert!(
            !text.contains(marker.as_str()),
            "{what} names the other market's {marker:?}: {text}"
        );
    }
}

#[tokio::test]
async fn each_markets_settings_carry_its_own_company_and_nothing_of_the_other() {
    let app = spawn_app().await;
    let india = data(app.get("/api/v1/site/settings?market=IN").await).await;
    let indonesia = data(app.get("/api/v1/site/settings?market=ID").await).await;
    assert_eq!(india["market"], "IN");
    assert_eq!(india["lenderName"], "Kilat Finance Private Limited (NBFC)");
    assert!(
        india["licence"]
            .as_str()
            .unwrap()
            .starts_with("Registered with the Reserve Bank of India")
    );
    assert_eq!(indonesia["market"], "ID");
    assert_eq!(indonesia["lenderName"], "PT Kilat Dana Indonesia");
    assert!(
        indonesia["licence"]
            .as_str()
            .unwrap()
            .starts_with("Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK)")
    );
    assert_eq!(indonesia["grievanceOfficer"]["name"], "Dewi Lestari");
    assert_eq!(
        india["companyName"], indonesia["companyName"],
        "the brand is shared"
    );
    assert_names_none(&indonesia.to_string(), &india_markers(), "ID settings");
    assert_names_none(&india.to_string(), &indonesia_markers(), "IN settings");

    let default = data(app.get("/api/v1/site/settings").await).await;
    assert_eq!(default, indonesia, "India only when asked, as with lang=1");
    let lower = data(app.get("/api/v1/site/settings?market=in").await).await;
    assert_eq!(lower, india);
    let unknown = app.get("/api/v1/site/settings?market=SG").await;
    assert_eq!(unknown.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(unknown).await["fields"]["market"].is_string());
    // Named but empty is not "absent": the document's enum says which values exist (schemathesis found this).
    let empty = app.get("/api/v1/site/settings?market=").await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

/// The JSON the server wrote into a page's `kilat-settings` block.
fn page_settings(html: &str) -> Value {
    let start = html
        .find(r#"id="kilat-settings">"#)
        .expect("a settings block")
        + r#"id="kilat-settings">"#.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[tokio::test]
async fn each_page_is_rendered_with_its_own_markets_company() {
    let app = spawn_app().await;
    let india_settings = data(app.get("/api/v1/site/settings?market=IN").await).await;
    let indonesia_settings = data(app.get("/api/v1/site/settings?market=ID").await).await;
    for (path, own, foreign) in [
        ("/", &indonesia_settings, india_markers()),
        ("/about", &indonesia_settings, india_markers()),
        ("/app/login", &indonesia_settings, india_markers()),
        ("/?lang=1", &india_settings, indonesia_markers()),
        ("/about?lang=1", &india_settings, indonesia_markers()),
        ("/app/login?lang=1", &india_settings, indonesia_markers()),
        (
            "/app/me/about?sessionId=x&lang=1",
            &india_settings,
            indonesia_markers(),
        ),
        // A page asked for by its file name is still the market's (`lang` decides, never the name).
        ("/index.html?lang=1", &india_settings, indonesia_markers()),
        ("/about.html?lang=1", &india_settings, indonesia_markers()),
        ("/index.en.html", &indonesia_settings, india_markers()),
        ("/about.en.html", &indonesia_settings, india_markers()),
        ("/index.html", &indonesia_settings, india_markers()),
        (
            "/about.en.html?lang=1",
            &india_settings,
            indonesia_markers(),
        ),
    ] {
        let html = app.get(path).await.text().await.unwrap();
        assert_eq!(
            &page_settings(&html),
            own,
            "{path}: the page carries exactly what the API answers for its market"
        );
        assert_names_none(&html, &foreign, path);
        if !path.starts_with("/app") {
            let lender = own["lenderName"].as_str().unwrap();
            let shown = html.split("kilat-settings").next().unwrap();
            assert!(shown.contains(lender), "{path}: the footer names {lender}");
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn login_init_and_the_privacy_policy_name_the_markets_own_lender() {
    let app = spawn_app().await;
    let india = data(app.get("/api/v1/borrower/login/init?market=IN").await).await;
    let indonesia = data(app.get("/api/v1/borrower/login/init?market=ID").await).await;
    assert_eq!(india["lenderName"], "Kilat Finance Private Limited (NBFC)");
    assert_eq!(indonesia["lenderName"], "PT Kilat Dana Indonesia");

    let english = data(app.get_en("/api/v1/borrower/privacy", None).await).await;
    let indonesian = data(app.get("/api/v1/borrower/privacy").await).await;
    let english = english.to_string();
    let indonesian = indonesian.to_string();
    assert!(english.contains(
        "Kilat Finance Private Limited (NBFC): Registered with the Reserve Bank of India"
    ));
    assert!(indonesian.contains(
        "PT Kilat Dana Indonesia: Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK)"
    ));
    assert_names_none(
        &indonesian,
        &india_markers(),
        "the Indonesian privacy policy",
    );
    assert_names_none(&english, &indonesia_markers(), "the English privacy policy");
    app.stop().await;
}

/// Signs in, certifies, applies and confirms; returns the home, the KFS and the agreement in the market's language.
async fn borrow(
    app: &TestApp,
    market: &str,
    phone: &str,
    product: &str,
    amount: i64,
    term: &str,
) -> (Value, Value, Value) {
    let session = app.sign_in(market, phone).await;
    app.certify(market, &session).await;
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    let kfs = data(
        app.post_as(
            "/api/v1/borrower/apply",
            &session,
            &json!({"productCode": product, "amount": amount, "termCode": term}),
        )
        .await,
    )
    .await;
    let created = app
        .post_as(
            "/api/v1/borrower/orders",
            &session,
            &json!({"productCode": product, "amount": amount, "termCode": term,
                "kfsHash": kfs["contentHash"], "idempotencyKey": format!("company-{market}-0001"),
                "agreementHash": app.agreement_hash(&session,
                    &json!({"productCode": product, "amount": amount, "termCode": term})).await}),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let order_no = data(created).await["orderNo"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/borrower/orders/{order_no}/agreement");
    let agreement = if market == "IN" {
        data(app.get_en(&path, Some(&session)).await).await
    } else {
        data(app.get_as(&path, &session).await).await
    };
    (home, kfs, agreement)
}

#[tokio::test]
async fn an_indonesian_loan_names_only_the_indonesian_lender_its_ojk_licence_and_pejabat_pengaduan()
{
    let app = spawn_app().await;
    let (home, kfs, agreement) = borrow(
        &app,
        "ID",
        "081234567890",
        "id-kilat-cicil",
        300_000_000,
        "m3",
    )
    .await;
    assert_eq!(home["lenderName"], "PT Kilat Dana Indonesia");
    assert_eq!(kfs["version"], 4);
    assert_eq!(kfs["lender"]["name"], "PT Kilat Dana Indonesia");
    assert_eq!(
        kfs["lender"]["licence"],
        "Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK), nomor izin KEP-00/D.05/2026 (contoh)"
    );
    assert_eq!(kfs["lender"]["grievanceOfficer"]["name"], "Dewi Lestari");
    assert_eq!(agreement["lender"], kfs["lender"]);
    let clauses = agreement["clauses"].to_string();
    assert!(clauses.contains("Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK)"));
    assert!(clauses.contains("Pejabat Pengaduan: Dewi Lestari"));
    assert!(clauses.contains("20 hari kerja") && clauses.contains("Kontak OJK 157"));
    for (what, value) in [("home", &home), ("KFS", &kfs), ("agreement", &agreement)] {
        assert_names_none(&value.to_string(), &india_markers(), what);
    }
    app.stop().await;
}

#[tokio::test]
async fn an_indian_loan_names_only_the_indian_lender_its_rbi_registration_and_grievance_officer() {
    let app = spawn_app().await;
    let (home, kfs, agreement) =
        borrow(&app, "IN", "9876543210", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(home["lenderName"], "Kilat Finance Private Limited (NBFC)");
    assert!(
        kfs["lender"]["licence"]
            .as_str()
            .unwrap()
            .contains("Certificate of Registration No. N-00.00000 (example)")
    );
    assert_eq!(kfs["lender"]["grievanceOfficer"]["name"], "Priya Raman");
    let clauses = agreement["clauses"].to_string();
    assert!(clauses.contains("Registered with the Reserve Bank of India"));
    assert!(clauses.contains("Grievance officer: Priya Raman"));
    assert!(clauses.contains("cms.rbi.org.in"));
    for (what, value) in [("home", &home), ("KFS", &kfs), ("agreement", &agreement)] {
        assert_names_none(&value.to_string(), &indonesia_markers(), what);
    }
    app.stop().await;
}

/// `kilat quote` loads and checks the settings like `kilat serve`, without a database: a start-up in a subprocess
/// with only the given environment.
fn quote_in_production(env: &[(&str, &str)]) -> std::process::Output {
    let products = concat!(env!("CARGO_MANIFEST_DIR"), "/products/id-kilat-cicil.toml");
    Command::new(env!("CARGO_BIN_EXE_kilat"))
        .args([
            "quote",
            "--product",
            products,
            "--amount",
            "300000000",
            "--term",
            "m3",
        ])
        .env_clear()
        .env("KILAT_MODE", "production")
        .env(
            "KILAT_SECRET_KEY",
            "4f1c9a7e2b6d8035c1e9f47a2d6b0c83e5a19f7d2c4b6e8019a3c5e7f1b2d4c6",
        )
        .env("KILAT_SMS__SENDER", "http")
        .env("KILAT_SMS__HTTP_URL", "https://sms.provider.test/send")
        .env("KILAT_PUSH__SENDER", "off")
        .envs(env.iter().copied())
        .output()
        .expect("the kilat binary runs")
}

#[test]
fn production_refuses_the_example_e_mail_domain_and_names_the_variable_to_set() {
    let refused = quote_in_production(&[]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("KILAT_SITE__MARKETS__IN__EMAIL") && stderr.contains("kilat.example"),
        "{stderr}"
    );

    let real = [
        ("KILAT_SITE__MARKETS__IN__EMAIL", "hello@kilat.co.in"),
        (
            "KILAT_SITE__MARKETS__IN__GRIEVANCE_OFFICER__EMAIL",
            "grievance@kilat.co.in",
        ),
        ("KILAT_SITE__MARKETS__ID__EMAIL", "halo@kilat.co.id"),
    ];
    let refused = quote_in_production(&real);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("KILAT_SITE__MARKETS__ID__GRIEVANCE_OFFICER__EMAIL"),
        "the last example address is named too: {stderr}"
    );

    let mut all = real.to_vec();
    all.push((
        "KILAT_SITE__MARKETS__ID__GRIEVANCE_OFFICER__EMAIL",
        "pengaduan@kilat.co.id",
    ));
    all.push(("KILAT_SITE__MARKETS__ID__LENDER_NAME", "PT Contoh Nyata"));
    // The demo's licence lines end "(example)" / "(contoh)": the lender's real ones.
    all.push((
        "KILAT_SITE__MARKETS__IN__LICENCE",
        "Registered with the Reserve Bank of India as an NBFC, CoR No. N-14.03268",
    ));
    all.push((
        "KILAT_SITE__MARKETS__ID__LICENCE",
        "Berizin dan diawasi oleh OJK, nomor izin KEP-12/D.05/2024",
    ));
    // Production also needs each enabled payment provider's own secret (docs/API-WEBHOOKS.md).
    let [razorpay, xendit, dragonpay, xendit_api_key] = crate::helpers::PRODUCTION_SECRETS;
    all.push(("KILAT_PAYMENTS__RAZORPAY__SECRET", razorpay));
    all.push(("KILAT_PAYMENTS__XENDIT__SECRET", xendit));
    // ... and a virtual-account provider that issues real accounts, with its own key.
    all.push(("KILAT_PAYMENTS__ID__VA_PROVIDER", "xendit"));
    all.push(("KILAT_PAYMENTS__ID__XENDIT_API_KEY", xendit_api_key));
    all.push(("KILAT_PAYMENTS__DRAGONPAY__SECRET", dragonpay));
    let started = quote_in_production(&all);
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let kfs: Value = serde_json::from_slice(&started.stdout).unwrap();
    assert_eq!(
        kfs["lender"]["name"], "PT Contoh Nyata",
        "KILAT_SITE__MARKETS__ID__LENDER_NAME sets Indonesia's lender"
    );
    assert_eq!(
        kfs["lender"]["grievanceOfficer"]["email"],
        "pengaduan@kilat.co.id"
    );
}
