//! Payment receipts (issue 19 item 16): a credited payment queues one text to the borrower in the notification outbox,
//! with the amount and what is left (or that the loan is repaid), in the market's language with the app's dates and
//! money; whichever path confirms it (finance, a provider's callback) and however many callbacks arrive, one receipt.

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use kilat_server::jobs::reminders;
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::helpers::{TestApp, data, spawn_app, spawn_app_with};
use crate::servicing::{approved, check_ledger, disburse, operator, pay};
use crate::webhooks::{
    XENDIT_TOKEN, indonesian_payment, rupiah, spawn_xendit, xendit, xendit_paid,
};

const RECEIPTS: &str =
    "SELECT COUNT(*) FROM notification_outbox WHERE payment_id = $1 AND kind = 'receipt'";

async fn receipts_of(app: &TestApp, order_id: &str) -> Vec<(String, String)> {
    app.db
        .notifications_of(order_id)
        .await
        .unwrap()
        .into_iter()
        .filter(|n| n.kind == "receipt")
        .map(|n| (n.payment_id.unwrap_or_default(), n.text))
        .collect()
}

/// 10:00 on the market's business date, within its sending hours.
fn mid_morning(app: &TestApp, market: Market) -> OffsetDateTime {
    let offset = match market {
        Market::India => time::UtcOffset::from_hms(5, 30, 0).unwrap(),
        Market::Indonesia => time::UtcOffset::from_hms(7, 0, 0).unwrap(),
    };
    app.services
        .clock
        .today(market)
        .with_hms(10, 0, 0)
        .unwrap()
        .assume_offset(offset)
}

/// "27 Nov 2026" for the market's business date, written here independently of the server's formatter.
fn today_human(app: &TestApp, market: Market, months: [&str; 12]) -> String {
    let d = app.services.clock.today(market);
    format!(
        "{} {} {}",
        d.day(),
        months[usize::from(u8::from(d.month())) - 1],
        d.year()
    )
}

const EN_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec",
];
const ID_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des",
];

/// ₹ in the app's format (lakh grouping; paise only when not zero), written here independently.
fn rupees(paise: i64) -> String {
    let cents = if paise % 100 == 0 {
        String::new()
    } else {
        format!(".{:02}", paise % 100)
    };
    let digits = (paise / 100).to_string();
    let (head, tail) = digits.split_at(digits.len().saturating_sub(3));
    let mut groups: Vec<String> = Vec::new();
    let mut rest = head.to_owned();
    while rest.len() > 2 {
        let at = rest.len() - 2;
        groups.insert(0, rest[at..].to_owned());
        rest.truncate(at);
    }
    if !rest.is_empty() {
        groups.insert(0, rest);
    }
    groups.push(tail.to_owned());
    format!("₹{}{cents}", groups.join(","))
}

/// Rp in the app's format for whole rupiah.
fn rupiah_text(sen: i64) -> String {
    assert_eq!(sen % 100, 0, "{sen}");
    let digits = (sen / 100).to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('.');
        }
        out.push(c);
    }
    format!("Rp {out}")
}

#[tokio::test]
async fn a_payment_finance_confirms_sends_one_receipt_with_what_is_left_and_the_payoff_says_repaid()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500331", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    assert!(receipts_of(&app, &id).await.is_empty());

    // One installment, confirmed by finance: the amount and what is left.
    let first = pay(
        &app,
        &finance,
        &session,
        &order_no,
        "due",
        "receipt-due-1",
        "500000000331",
    )
    .await;
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let left = plan["outstanding"]["total"].as_i64().unwrap();
    assert!(left > 0);
    let paid = first["payment"]["amount"]
        .as_i64()
        .or_else(|| first["amount"].as_i64())
        .expect("the confirmation names the amount");
    let receipts = receipts_of(&app, &id).await;
    assert_eq!(receipts.len(), 1, "{receipts:?}");
    let today = today_human(&app, Market::India, EN_MONTHS);
    assert_eq!(
        receipts[0].1,
        format!(
            "Kilat: we received {} for loan {order_no} on {today}. Thank you. {} is left to repay; the Kilat app \
             shows your next installment.",
            rupees(paid),
            rupees(left)
        )
    );

    // The payoff: "your loan is repaid".
    let done = pay(
        &app,
        &finance,
        &session,
        &order_no,
        "payoff",
        "receipt-payoff-1",
        "500000000332",
    )
    .await;
    assert_eq!(done["orderStatus"], "repaid");
    let receipts = receipts_of(&app, &id).await;
    assert_eq!(receipts.len(), 2, "{receipts:?}");
    assert!(
        receipts[1]
            .1
            .ends_with("Thank you: your loan is repaid and nothing more is due."),
        "{}",
        receipts[1].1
    );
    assert_ne!(receipts[0].0, receipts[1].0, "one receipt per payment");

    // Sent within the sending hours to the borrower's own phone, once.
    let at = mid_morning(&app, Market::India);
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 2);
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 0);
    let sent = app.texts_sent().await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent.iter().all(|phone| phone == "+919876500331"));
    let stored = app.db.notifications_of(&id).await.unwrap();
    assert!(
        stored
            .iter()
            .filter(|n| n.kind == "receipt")
            .all(|n| n.status == "sent" && n.sent_at.is_some())
    );
    // No device uploaded a push token: no push is queued (pushes are on, `log`, in development).
    assert!(stored.iter().all(|n| n.kind != reminders::PUSH_RECEIPT));
    app.stop().await;
}

/// The borrower's devices as their apps uploaded push tokens.
async fn register_device(app: &TestApp, session: &str, token: &str) {
    let response = app
        .post_as(
            "/api/v1/borrower/device-token",
            session,
            &json!({"token": token, "platform": "android"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_receipt_is_pushed_to_the_borrowers_devices_once_and_a_token_the_gateway_forgot_is_forgotten()
 {
    use wiremock::matchers::{body_partial_json, header, method, path};
    use wiremock::{Mock, ResponseTemplate};

    let gateway = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/push"))
        .and(header("authorization", "Bearer gateway-key"))
        .and(body_partial_json(json!({"token": "device-old"})))
        .respond_with(ResponseTemplate::new(410))
        .mount(&gateway)
        .await;
    Mock::given(method("POST"))
        .and(path("/push"))
        .and(header("authorization", "Bearer gateway-key"))
        .and(body_partial_json(json!({"token": "device-new"})))
        .respond_with(ResponseTemplate::new(200))
        .mount(&gateway)
        .await;
    let app = spawn_app_with(|s| {
        s.push.sender = kilat_server::settings::PushSenderKind::Http;
        s.push.http_url = format!("{}/push", gateway.uri());
        s.push.http_api_key = Some("gateway-key".into());
    })
    .await;
    let finance = operator(&app, "fin-push", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500341", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    register_device(&app, &session, "device-old").await;
    register_device(&app, &session, "device-new").await;

    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "due",
        "push-due-1",
        "500000000341",
    )
    .await;
    let stored = app.db.notifications_of(&id).await.unwrap();
    let sms: Vec<_> = stored.iter().filter(|n| n.kind == "receipt").collect();
    let pushed: Vec<_> = stored
        .iter()
        .filter(|n| n.kind == reminders::PUSH_RECEIPT)
        .collect();
    assert_eq!((sms.len(), pushed.len()), (1, 1), "{stored:?}");
    assert_eq!(
        pushed[0].text, sms[0].text,
        "the push says what the text says"
    );
    assert_eq!(pushed[0].payment_id, sms[0].payment_id);

    // Delivered once: the SMS to the phone, the push to each device; the gone token is forgotten.
    let at = mid_morning(&app, Market::India);
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 2);
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 0);
    let requests = gateway.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "one push per device");
    let delivered: Value = requests
        .iter()
        .map(|r| r.body_json::<Value>().unwrap())
        .find(|b| b["token"] == "device-new")
        .expect("the live device got the push");
    assert_eq!(delivered["title"], "Payment received");
    assert_eq!(delivered["platform"], "android");
    assert_eq!(delivered["body"].as_str(), Some(sms[0].text.as_str()));
    let tokens = app
        .db
        .push_tokens_of(&stored[0].borrower_id, 10)
        .await
        .unwrap();
    let tokens: Vec<&str> = tokens.iter().map(|t| t.token.as_str()).collect();
    assert_eq!(tokens, ["device-new"]);
    let stored = app.db.notifications_of(&id).await.unwrap();
    assert!(stored.iter().all(|n| n.status == "sent"), "{stored:?}");

    // The next payment goes to the device left only.
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "due",
        "push-due-2",
        "500000000342",
    )
    .await;
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 2);
    assert_eq!(gateway.received_requests().await.unwrap().len(), 3);
    app.stop().await;
}

#[tokio::test]
async fn a_callback_arriving_twice_or_ten_times_at_once_sends_one_receipt_saying_the_loan_is_repaid_in_indonesian()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin-idr", &[Role::Finance]).await;
    let (session, order_no, id, payment) =
        indonesian_payment(&app, &finance, "081234567831", "due").await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let body = xendit_paid(&payment, "xnd-receipt-0001", rupiah(&payment));

    // Ten callbacks at once, each its own event id for the same provider payment: one credit, one receipt.
    let mut tasks = Vec::new();
    for n in 0..10 {
        let mut body = body.clone();
        body["id"] = Value::String(format!("cb-receipt-{n}"));
        tasks.push(spawn_xendit(&app, body));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.unwrap());
    }
    assert_eq!(
        outcomes.iter().filter(|o| *o == "confirmed").count(),
        1,
        "{outcomes:?}"
    );
    // The first callback again (a replay): nothing more.
    let again = xendit(&app, XENDIT_TOKEN, &body).await;
    assert_eq!(again.status(), StatusCode::OK);
    let twice = xendit(&app, XENDIT_TOKEN, &body).await;
    assert_eq!(data(twice).await["outcome"], "replayed");

    let mut count: (i64,) = sqlx::query_as(RECEIPTS)
        .bind(&payment_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(count.0, 1);
    // The loan's one installment: paid, the loan is repaid.
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["outstanding"]["total"], 0);
    let receipts = receipts_of(&app, &id).await;
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0].0, payment_id);
    let today = today_human(&app, Market::Indonesia, ID_MONTHS);
    assert_eq!(
        receipts[0].1,
        format!(
            "Kilat: pembayaran {} untuk pinjaman {order_no} sudah kami terima pada {today}. Terima kasih, pinjaman \
             Anda sudah lunas dan tidak ada lagi yang harus dibayar.",
            rupiah_text(payment["amount"].as_i64().unwrap()),
        )
    );
    let at = mid_morning(&app, Market::Indonesia);
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 1);
    let sent = app.texts_sent().await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0], "+6281234567831");
    count = sqlx::query_as(RECEIPTS)
        .bind(&payment_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(count.0, 1);
    app.stop().await;
}
