//! The data export's sections beyond the profile and the loans (complaints with their conversation and photos, app
//! ratings, the location answer, the device and push tokens, the app's events), the readable dates added beside every
//! time, and the readable summary (`summaryHtml`) in the borrower's language only.
//!
//! Every table with a `borrower_id` column is either exported ([`EXPORTED_TABLES`]) or named with the reason it is not
//! ([`NOT_EXPORTED`]): a test lists the schema's tables and fails on a table in neither list.

use base64::Engine;
use kilat_domain::Market;
use serde_json::{Map, Value, json};

use crate::auth::Borrower;
use crate::error::Error;
use crate::i18n::{self, Lang};
use crate::services::Services;

/// The tables with a `borrower_id` column whose rows the export carries, and the section each is in.
pub const EXPORTED_TABLES: &[(&str, &str)] = &[
    ("borrower_sessions", "sessions"),
    ("certification_steps", "certification"),
    ("certification_log", "certificationLog"),
    ("orders", "orders"),
    ("payments", "orders[].payments"),
    ("notification_outbox", "notifications"),
    ("complaints", "complaints"),
    ("complaint_images", "complaints[].messages[].photos"),
    ("app_ratings", "appRatings"),
    ("borrower_locations", "location"),
    ("client_events", "appEvents"),
    ("borrower_devices", "device"),
    ("device_tokens", "pushTokens"),
];

/// The tables with a `borrower_id` column the export leaves out, and why.
pub const NOT_EXPORTED: &[(&str, &str)] = &[
    (
        "complaint_upload_slots",
        "places of photo uploads under way, held for two minutes at most: no content",
    ),
    (
        "borrower_fingerprints",
        "keyed hashes of the PAN/NIK, phone and bank account (in `certification`), for duplicate checks: nothing readable",
    ),
];

/// The most app events an export lists (the newest; the retention sweep keeps far fewer).
const EXPORT_EVENTS: i64 = 5_000;

/// The most bytes of complaint photos one export carries inline (as base64, in the JSON and again in the summary),
/// newest complaints first: the export's memory is bounded whatever a borrower uploaded over the years (a borrower
/// may send dozens of photos a day, up to 5 MB each). Photos past it are listed with their details and a note to open
/// them in the app, where each is served on its own.
pub const EXPORT_PHOTO_BYTES: i64 = 16 * 1024 * 1024;

/// Adds the complaints, app ratings, location answer, device, push tokens and app events to `sections`.
pub(super) async fn add_sections(
    s: &Services,
    borrower: &Borrower,
    sections: &mut std::collections::BTreeMap<String, Value>,
) -> Result<(), Error> {
    let mut complaints = Vec::new();
    let lang = Lang::of_market(borrower.market);
    // What is left of the photos' inline budget: checked on each photo's recorded size before its bytes are read.
    let mut photo_bytes_left = EXPORT_PHOTO_BYTES;
    for row in s.db.all_complaints_of(&borrower.id).await? {
        let messages = s.db.complaint_messages(&s.secrets, &row.id).await?;
        let images = s.db.complaint_images(&row.id).await?;
        let mut photos_of: std::collections::HashMap<String, Vec<Value>> = Default::default();
        for (n, image) in images.into_iter().enumerate() {
            let inline = image.size_bytes <= photo_bytes_left;
            let base64 = if inline {
                photo_bytes_left -= image.size_bytes;
                let bytes = s.files.get(&image.storage_key).await?.ok_or_else(|| {
                    Error::Internal(anyhow::anyhow!(
                        "image {} is missing from the file store",
                        image.id
                    ))
                })?;
                Value::String(base64::engine::general_purpose::STANDARD.encode(&bytes))
            } else {
                Value::Null
            };
            let extension = image.storage_key.rsplit('.').next().unwrap_or("jpg");
            let mut photo = json!({
                "fileName": format!("{}-photo-{}.{extension}", row.ticket_no, n + 1),
                "contentType": image.content_type,
                "width": image.width,
                "height": image.height,
                "size": image.size_bytes,
                "createdAt": image.created_at,
                "base64": base64,
            });
            if !inline {
                photo["leftOut"] =
                    Value::String(i18n::text(lang, "data_export.photo_left_out").to_owned());
            }
            // A photo without its message (none such is written) goes with the complaint's text.
            let key = image.message_id.unwrap_or_default();
            photos_of.entry(key).or_default().push(photo);
        }
        let first_borrower_message = messages
            .iter()
            .find(|m| m.author_kind == "borrower")
            .map(|m| m.id.clone());
        let messages: Vec<Value> = messages
            .into_iter()
            .map(|m| {
                let mut photos = photos_of.remove(&m.id).unwrap_or_default();
                if Some(&m.id) == first_borrower_message.as_ref() {
                    photos.extend(photos_of.remove("").unwrap_or_default());
                }
                json!({
                    "author": if m.author_kind == "borrower" { "you" } else { "support" },
                    "text": m.body,
                    "sentAt": m.created_at,
                    "photos": photos,
                })
            })
            .collect();
        complaints.push(json!({
            "ticketNo": row.ticket_no,
            "category": row.category,
            "orderNo": row.order_no,
            "status": row.status,
            "receivedOn": row.received_on,
            "createdAt": row.created_at,
            "answeredAt": row.answered_at,
            "closedAt": row.closed_at,
            "score": row.score,
            "scoreComment": row.score_comment,
            "messages": messages,
        }));
    }
    sections.insert("complaints".to_owned(), Value::Array(complaints));

    let ratings: Vec<Value> = s
        .db
        .app_ratings_of(&borrower.id)
        .await?
        .into_iter()
        .map(|(score, comment, at)| json!({"score": score, "comment": comment, "createdAt": at}))
        .collect();
    sections.insert("appRatings".to_owned(), Value::Array(ratings));

    let location = s.db.location_of(&borrower.id).await?.map(|l| {
        json!({
            "shared": l.consent != 0,
            // Kept as whole tenths of a degree (about 11 km): shown as the degrees they are.
            "latitude": l.latitude_e1.map(tenths),
            "longitude": l.longitude_e1.map(tenths),
            "answeredAt": l.created_at,
        })
    });
    sections.insert("location".to_owned(), location.unwrap_or(Value::Null));

    let device =
        s.db.device_of(&borrower.id)
            .await?
            .map(|(model, os, version, at, withdrawn)| match withdrawn {
                Some(withdrawn) => json!({"consentWithdrawnAt": withdrawn}),
                None => json!({"model": model, "os": os, "appVersion": version, "updatedAt": at}),
            });
    sections.insert("device".to_owned(), device.unwrap_or(Value::Null));
    let tokens: Vec<Value> = s
        .db
        .device_tokens_of(&borrower.id)
        .await?
        .into_iter()
        .map(|(token, platform, at)| json!({"token": token, "platform": platform, "updatedAt": at}))
        .collect();
    sections.insert("pushTokens".to_owned(), Value::Array(tokens));

    let events: Vec<Value> =
        s.db.client_events_for_export(&borrower.id, EXPORT_EVENTS)
            .await?
            .into_iter()
            .map(|e| {
                json!({"kind": e.kind, "name": e.name, "route": e.route,
                    "detail": e.detail.as_deref().map(|d| serde_json::from_str(d).unwrap_or(Value::String(d.to_owned()))),
                    "occurredAt": e.occurred_at, "createdAt": e.created_at})
            })
            .collect();
    sections.insert("appEvents".to_owned(), Value::Array(events));
    Ok(())
}

/// Tenths of a degree as degrees, in text (`-6.2`): no float is involved.
fn tenths(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let abs = value.unsigned_abs();
    format!("{sign}{}.{}", abs / 10, abs % 10)
}

/// Beside every time in epoch milliseconds (a key ending in `At`), the same time as people read it in the
/// borrower's market and language: `createdAt` → `createdAtText` "27 Nov 2026, 14:05 IST".
pub(super) fn add_readable_dates(value: &mut Value, market: Market) {
    match value {
        Value::Object(map) => {
            let mut texts = Map::new();
            for (key, item) in map.iter_mut() {
                if key.ends_with("At")
                    && let Some(ms) = item.as_i64()
                {
                    texts.insert(format!("{key}Text"), Value::String(human_time(market, ms)));
                } else {
                    add_readable_dates(item, market);
                }
            }
            map.extend(texts);
        }
        Value::Array(items) => {
            for item in items {
                add_readable_dates(item, market);
            }
        }
        _ => {}
    }
}

const MONTHS_EN: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const MONTHS_ID: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des",
];

/// A moment as the market's people read it, on its clock: "27 Nov 2026, 14:05 IST" (India), "27 Des 2026, 14.05
/// WIB" (Indonesia).
pub fn human_time(market: Market, epoch_ms: i64) -> String {
    let Ok(utc) = time::OffsetDateTime::from_unix_timestamp(epoch_ms.div_euclid(1000)) else {
        return epoch_ms.to_string();
    };
    let local = market.local_time(utc);
    let month = usize::from(u8::from(local.month())) - 1;
    match market {
        Market::India => format!(
            "{} {} {}, {:02}:{:02} IST",
            local.day(),
            MONTHS_EN[month],
            local.year(),
            local.hour(),
            local.minute()
        ),
        Market::Indonesia => format!(
            "{} {} {}, {:02}.{:02} WIB",
            local.day(),
            MONTHS_ID[month],
            local.year(),
            local.hour(),
            local.minute()
        ),
    }
}

/// Escapes text for HTML.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The words for a collections contact's channel or outcome code.
fn contact_key(code: &str) -> Option<&'static str> {
    Some(match code {
        "call" => "data_export.channel_call",
        "sms" => "data_export.channel_sms",
        "whatsapp" => "data_export.channel_whatsapp",
        "email" => "data_export.channel_email",
        "reached" => "data_export.outcome_reached",
        "no_answer" => "data_export.outcome_no_answer",
        "busy" => "data_export.outcome_busy",
        "wrong_number" => "data_export.outcome_wrong_number",
        "refused" => "data_export.outcome_refused",
        "promised" => "data_export.outcome_promised",
        "disputed" => "data_export.outcome_disputed",
        "left_message" => "data_export.outcome_left_message",
        _ => return None,
    })
}

/// The summary's heading of a certification step, by its code.
fn step_key(step: &str) -> &'static str {
    match step {
        "personal" => "data_export.step_personal",
        "job" => "data_export.step_job",
        "extended" => "data_export.step_extended",
        "bank" => "data_export.step_bank",
        _ => "data_export.step_base",
    }
}

/// A complaint's state in the summary, by its status code.
fn status_key(status: &str) -> &'static str {
    match status {
        "answered" => "data_export.status_answered",
        "closed" => "data_export.status_closed",
        _ => "data_export.status_open",
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The export as a page people read, in the borrower's language only: who they are, their loans, what collections
/// recorded about them, complaints with
/// the conversation and photos, ratings, location answer, device, sign-ins, messages sent and app events (counted).
pub(super) fn summary_html(
    sections: &std::collections::BTreeMap<String, Value>,
    market: Market,
    generated_at: i64,
) -> String {
    let lang = Lang::of_market(market);
    let t = |key: &str| i18n::text(lang, key);
    let time = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_i64)
            .map(|ms| human_time(market, ms))
    };
    let none = format!("<p>{}</p>", esc(t("data_export.none")));
    let mut h = String::new();
    h.push_str(&format!(
        "<!doctype html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title>\
         <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}}\
         table{{border-collapse:collapse;width:100%}}th,td{{text-align:left;border-bottom:1px solid #ddd;padding:.3rem .5rem;vertical-align:top}}\
         th{{width:35%;font-weight:600}}.msg{{border-left:3px solid #888;padding:.2rem .8rem;margin:.6rem 0}}\
         .msg--you{{border-color:#1677ff}}.muted{{color:#555}}img{{max-width:100%;height:auto;display:block;margin:.4rem 0}}</style></head><body>\n",
        lang.code(),
        esc(t("data_export.title"))
    ));
    h.push_str(&format!("<h1>{}</h1>\n", esc(t("data_export.title"))));
    h.push_str(&format!(
        "<p class=\"muted\">{}</p>\n<p>{}</p>\n",
        esc(&i18n::format(
            lang,
            "data_export.generated",
            &[("date", &human_time(market, generated_at))]
        )),
        esc(t("data_export.intro"))
    ));

    // Who they are.
    h.push_str(&format!(
        "<h2>{}</h2>\n<table>",
        esc(t("data_export.profile"))
    ));
    if let Some(p) = sections.get("profile") {
        h.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(t("data_export.phone")),
            esc(str_of(p, "phone"))
        ));
        if let Some(at) = time(p, "createdAt") {
            h.push_str(&format!(
                "<tr><th>{}</th><td>{}</td></tr>",
                esc(t("data_export.joined")),
                esc(&at)
            ));
        }
    }
    h.push_str("</table>\n");

    // The details given at certification, step by step.
    h.push_str(&format!(
        "<h2>{}</h2>\n",
        esc(t("data_export.certification"))
    ));
    match sections.get("certification").and_then(Value::as_array) {
        Some(steps) if !steps.is_empty() => {
            for step in steps {
                h.push_str(&format!(
                    "<h3>{}</h3><table>",
                    esc(&format!(
                        "{} · {}",
                        t(step_key(str_of(step, "step"))),
                        time(step, "completedAt").unwrap_or_default()
                    ))
                ));
                if let Some(data) = step.get("data").and_then(Value::as_object) {
                    // The values as given (the field names are the JSON file's, in English: not repeated here).
                    let values: Vec<String> = data
                        .values()
                        .filter_map(|value| match value {
                            Value::String(s) if !s.is_empty() => Some(s.clone()),
                            Value::Number(n) => Some(n.to_string()),
                            _ => None,
                        })
                        .collect();
                    h.push_str(&format!("<tr><td>{}</td></tr>", esc(&values.join(" · "))));
                }
                h.push_str("</table>\n");
            }
        }
        _ => h.push_str(&none),
    }

    // Loans.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.loans"))));
    match sections.get("orders").and_then(Value::as_array) {
        Some(orders) if !orders.is_empty() => {
            h.push_str(&format!(
                "<table><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr>",
                esc(t("data_export.loan")),
                esc(t("data_export.status"))
            ));
            for o in orders {
                let amount = o.get("amount").and_then(Value::as_i64).unwrap_or_default();
                let currency = o
                    .get("currency")
                    .and_then(|c| serde_json::from_value::<kilat_domain::Currency>(c.clone()).ok());
                let money = currency
                    .map(|c| i18n::format_money(kilat_domain::Money::from_minor(amount), c))
                    .unwrap_or_else(|| amount.to_string());
                h.push_str(&format!(
                    "<tr><td>{}<br><span class=\"muted\">{} · {} · {}</span></td><td>{}</td></tr>",
                    esc(str_of(o, "orderNo")),
                    esc(str_of(o, "productName")),
                    esc(&money),
                    esc(&time(o, "createdAt").unwrap_or_default()),
                    esc(str_of(o, "status"))
                ));
            }
            h.push_str("</table>\n");
        }
        _ => h.push_str(&none),
    }

    // What collections recorded about each loan: every call or message and what came of it, every promise to pay.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.collections"))));
    let mut recorded = false;
    for o in sections
        .get("orders")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let empty = Vec::new();
        let of = |key: &str| {
            o.pointer(&format!("/collections/{key}"))
                .and_then(Value::as_array)
                .unwrap_or(&empty)
        };
        let (contacts, promises) = (of("contacts"), of("promises"));
        if contacts.is_empty() && promises.is_empty() {
            continue;
        }
        recorded = true;
        h.push_str(&format!("<h3>{}</h3>\n<ul>", esc(str_of(o, "orderNo"))));
        let named = |code: &str| match contact_key(code) {
            Some(key) => t(key).to_owned(),
            None => code.to_owned(),
        };
        for c in contacts {
            let note = str_of(c, "note");
            h.push_str(&format!(
                "<li>{} · {} · {}{}</li>",
                esc(&time(c, "createdAt").unwrap_or_default()),
                esc(&named(str_of(c, "channel"))),
                esc(&named(str_of(c, "outcome"))),
                if note.is_empty() {
                    String::new()
                } else {
                    format!("<br><span class=\"muted\">{}</span>", esc(note))
                }
            ));
        }
        for p in promises {
            let currency = p
                .get("currency")
                .and_then(|c| serde_json::from_value::<kilat_domain::Currency>(c.clone()).ok());
            let amount = p.get("amount").and_then(Value::as_i64).unwrap_or_default();
            let money = currency
                .map(|c| i18n::format_money(kilat_domain::Money::from_minor(amount), c))
                .unwrap_or_else(|| amount.to_string());
            let day = |key: &str| {
                crate::store::loans::parse_date(str_of(p, key))
                    .map(|d| i18n::format_date(lang, d))
                    .unwrap_or_else(|_| str_of(p, key).to_owned())
            };
            h.push_str(&format!(
                "<li>{}</li>",
                esc(&i18n::format(
                    lang,
                    "data_export.promise",
                    &[
                        ("amount", &money),
                        ("date", &day("promisedOn")),
                        ("made", &day("madeOn")),
                    ]
                ))
            ));
        }
        h.push_str("</ul>\n");
    }
    if !recorded {
        h.push_str(&none);
    }

    // Complaints, with the conversation and the photos where they were sent.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.complaints"))));
    match sections.get("complaints").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => {
            for c in list {
                h.push_str(&format!(
                    "<h3>{} · {}</h3>\n<p class=\"muted\">{}</p>\n",
                    esc(str_of(c, "ticketNo")),
                    esc(i18n::text(
                        lang,
                        &format!("complaint_category.{}", str_of(c, "category"))
                    )),
                    esc(&i18n::format(
                        lang,
                        "data_export.complaint_status",
                        &[
                            ("status", t(status_key(str_of(c, "status")))),
                            ("date", &time(c, "createdAt").unwrap_or_default()),
                        ]
                    ))
                ));
                for m in c
                    .get("messages")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let you = str_of(m, "author") == "you";
                    h.push_str(&format!(
                        "<div class=\"msg{}\"><strong>{}</strong> <span class=\"muted\">{}</span><p>{}</p>",
                        if you { " msg--you" } else { "" },
                        esc(t(if you { "data_export.by_you" } else { "data_export.by_support" })),
                        esc(&time(m, "sentAt").unwrap_or_default()),
                        esc(str_of(m, "text")).replace('\n', "<br>")
                    ));
                    for (n, p) in m
                        .get("photos")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .enumerate()
                    {
                        if p.get("base64").and_then(Value::as_str).is_none() {
                            h.push_str(&format!(
                                "<p class=\"muted\">{}: {}</p>",
                                esc(&i18n::format(
                                    lang,
                                    "data_export.photo",
                                    &[("n", &(n + 1).to_string())]
                                )),
                                esc(str_of(p, "leftOut"))
                            ));
                            continue;
                        }
                        h.push_str(&format!(
                            "<img src=\"data:{};base64,{}\" alt=\"{}\" width=\"{}\" height=\"{}\">",
                            esc(str_of(p, "contentType")),
                            str_of(p, "base64"),
                            esc(&i18n::format(
                                lang,
                                "data_export.photo",
                                &[("n", &(n + 1).to_string())]
                            )),
                            p.get("width").and_then(Value::as_i64).unwrap_or_default(),
                            p.get("height").and_then(Value::as_i64).unwrap_or_default(),
                        ));
                    }
                    h.push_str("</div>\n");
                }
                if let Some(score) = c.get("score").and_then(Value::as_i64) {
                    h.push_str(&format!(
                        "<p>{}</p>\n",
                        esc(&i18n::format(
                            lang,
                            "data_export.your_score",
                            &[("score", &score.to_string())]
                        ))
                    ));
                }
            }
        }
        _ => h.push_str(&none),
    }

    // App ratings.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.ratings"))));
    match sections.get("appRatings").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => {
            h.push_str("<table>");
            for r in list {
                h.push_str(&format!(
                    "<tr><th>{}</th><td>{} / 5 {}</td></tr>",
                    esc(&time(r, "createdAt").unwrap_or_default()),
                    r.get("score").and_then(Value::as_i64).unwrap_or_default(),
                    esc(str_of(r, "comment"))
                ));
            }
            h.push_str("</table>\n");
        }
        _ => h.push_str(&none),
    }

    // The location answer.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.location"))));
    match sections.get("location").filter(|l| !l.is_null()) {
        Some(l) => {
            let text = if l.get("shared").and_then(Value::as_bool).unwrap_or(false)
                && !str_of(l, "latitude").is_empty()
            {
                i18n::format(
                    lang,
                    "data_export.location_shared",
                    &[
                        ("lat", str_of(l, "latitude")),
                        ("lon", str_of(l, "longitude")),
                    ],
                )
            } else {
                t("data_export.location_refused").to_owned()
            };
            h.push_str(&format!(
                "<p>{} <span class=\"muted\">({})</span></p>\n",
                esc(&text),
                esc(&time(l, "answeredAt").unwrap_or_default())
            ));
        }
        None => h.push_str(&none),
    }

    // The device and push tokens.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.device"))));
    match sections.get("device").filter(|d| !d.is_null()) {
        Some(d) if d.get("consentWithdrawnAt").is_some() => h.push_str(&format!(
            "<p>{}</p>\n",
            esc(&i18n::format(
                lang,
                "data_export.device_withdrawn",
                &[("date", &time(d, "consentWithdrawnAt").unwrap_or_default())]
            ))
        )),
        Some(d) => h.push_str(&format!(
            "<p>{} · {} · {} <span class=\"muted\">({})</span></p>\n",
            esc(str_of(d, "model")),
            esc(str_of(d, "os")),
            esc(str_of(d, "appVersion")),
            esc(&time(d, "updatedAt").unwrap_or_default())
        )),
        None => h.push_str(&none),
    }
    let tokens = sections
        .get("pushTokens")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    h.push_str(&format!(
        "<p>{}</p>\n",
        esc(&i18n::format(
            lang,
            "data_export.push_tokens",
            &[("count", &tokens.to_string())]
        ))
    ));

    // Sign-ins and the messages sent.
    h.push_str(&format!("<h2>{}</h2>\n", esc(t("data_export.sessions"))));
    match sections.get("sessions").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => {
            h.push_str("<ul>");
            for x in list {
                h.push_str(&format!(
                    "<li>{}</li>",
                    esc(&time(x, "createdAt").unwrap_or_default())
                ));
            }
            h.push_str("</ul>\n");
        }
        _ => h.push_str(&none),
    }
    h.push_str(&format!(
        "<h2>{}</h2>\n",
        esc(t("data_export.notifications"))
    ));
    match sections.get("notifications").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => {
            h.push_str("<table>");
            for n in list {
                h.push_str(&format!(
                    "<tr><th>{}</th><td>{}</td></tr>",
                    esc(&time(n, "createdAt").unwrap_or_default()),
                    esc(str_of(n, "text"))
                ));
            }
            h.push_str("</table>\n");
        }
        _ => h.push_str(&none),
    }

    // The app's events, counted (each is in the JSON file).
    let events = sections
        .get("appEvents")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    h.push_str(&format!(
        "<h2>{}</h2>\n<p>{}</p>\n",
        esc(t("data_export.events")),
        esc(&i18n::format(
            lang,
            "data_export.events_count",
            &[("count", &events.to_string())]
        ))
    ));
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_reads_in_the_market_s_clock_and_language() {
        // 2026-11-26 19:16 UTC: the 27th in Jakarta and in Mumbai.
        let ms = 1_795_720_560_000;
        assert_eq!(human_time(Market::India, ms), "27 Nov 2026, 00:46 IST");
        assert_eq!(human_time(Market::Indonesia, ms), "27 Nov 2026, 02.16 WIB");
        let december = ms + 30 * 86_400_000;
        assert_eq!(
            human_time(Market::Indonesia, december),
            "27 Des 2026, 02.16 WIB"
        );
    }

    #[test]
    fn tenths_of_a_degree_read_as_degrees() {
        assert_eq!(tenths(-62), "-6.2");
        assert_eq!(tenths(1068), "106.8");
        assert_eq!(tenths(-5), "-0.5");
        assert_eq!(tenths(0), "0.0");
    }

    #[test]
    fn every_time_gets_its_readable_twin() {
        let mut v = json!({"createdAt": 1_795_720_560_000_i64, "list": [{"sentAt": 1_795_720_560_000_i64}], "closedAt": null});
        add_readable_dates(&mut v, Market::India);
        assert_eq!(v["createdAtText"], "27 Nov 2026, 00:46 IST");
        assert_eq!(v["list"][0]["sentAtText"], "27 Nov 2026, 00:46 IST");
        assert!(v.get("closedAtText").is_none());
    }

    #[test]
    fn the_summary_escapes_and_speaks_one_language() {
        let mut sections = std::collections::BTreeMap::new();
        sections.insert(
            "complaints".to_owned(),
            json!([{"ticketNo": "CP-1", "category": "app", "status": "open", "createdAt": 0,
                "messages": [{"author": "you", "text": "<script>x</script>", "sentAt": 0, "photos": []}]}]),
        );
        let id = summary_html(&sections, Market::Indonesia, 0);
        assert!(id.contains("&lt;script&gt;x&lt;/script&gt;"));
        assert!(!id.contains("<script>"));
        assert!(id.contains("lang=\"id\""));
        assert!(id.contains(i18n::text(Lang::Id, "data_export.title")));
        assert!(!id.contains(i18n::text(Lang::En, "data_export.title")));
        assert!(!id.contains(i18n::text(Lang::En, "data_export.complaints")));
        let en = summary_html(&sections, Market::India, 0);
        assert!(en.contains(i18n::text(Lang::En, "data_export.by_you")));
        assert!(!en.contains(i18n::text(Lang::Id, "data_export.by_you")));
    }
}
