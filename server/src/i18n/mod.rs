//! The server's user-visible texts in English and Indonesian: message catalogs (`en.toml`, `id.toml`), the request's
//! language, and amounts as people read them. Nothing here knows about HTTP.

mod dates;
mod human;
mod lang;
mod money;

use std::collections::HashMap;
use std::sync::LazyLock;

pub use dates::{format_date, format_market_date, market_date};
pub use human::sms_money;
pub use lang::Lang;
pub use money::{format_apr, format_money, format_rate};

/// One language's texts, keyed `table.key` (e.g. `error.not_found`).
struct Texts(HashMap<String, String>);

static EN: LazyLock<Texts> = LazyLock::new(|| Texts::parse(include_str!("en.toml")));
static ID: LazyLock<Texts> = LazyLock::new(|| Texts::parse(include_str!("id.toml")));

impl Texts {
    fn parse(source: &str) -> Self {
        let table: toml::Table = source
            .parse()
            .expect("the built-in message catalog is valid TOML");
        let mut texts = HashMap::new();
        for (section, entries) in table {
            let toml::Value::Table(entries) = entries else {
                panic!("catalog entry {section} is not a table");
            };
            for (key, value) in entries {
                let toml::Value::String(text) = value else {
                    panic!("catalog entry {section}.{key} is not a string");
                };
                texts.insert(format!("{section}.{key}"), text);
            }
        }
        Self(texts)
    }
}

fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Id => &ID,
    }
}

/// The text of `key` in `lang`. A key missing from a catalog is a bug the catalog test catches; at run time it shows
/// as the key itself rather than failing the request.
pub fn text(lang: Lang, key: &str) -> &'static str {
    texts(lang).0.get(key).map_or_else(
        || {
            tracing::error!(
                key,
                lang = lang.code(),
                "missing text in the message catalog"
            );
            ""
        },
        String::as_str,
    )
}

/// The text of `key` with each `{name}` replaced by its value.
pub fn format(lang: Lang, key: &str, args: &[(&str, &str)]) -> String {
    let template = text(lang, key);
    if template.is_empty() {
        return key.to_owned();
    }
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match args.iter().find(|(n, _)| *n == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|part| part.split_once('}').map(|(name, _)| name.to_owned()))
            .collect()
    }

    #[test]
    fn every_key_exists_in_both_languages_with_the_same_placeholders() {
        let en: BTreeSet<_> = EN.0.keys().collect();
        let id: BTreeSet<_> = ID.0.keys().collect();
        assert_eq!(
            en.difference(&id).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "in en.toml, not in id.toml"
        );
        assert_eq!(
            id.difference(&en).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "in id.toml, not in en.toml"
        );
        for key in en {
            assert_eq!(
                placeholders(&EN.0[key]),
                placeholders(&ID.0[key]),
                "{key} has other placeholders in English and Indonesian"
            );
            assert!(
                !EN.0[key].trim().is_empty() && !ID.0[key].trim().is_empty(),
                "{key} is empty"
            );
        }
    }

    /// Every `"error.…"`, `"field.…"`, `"sms.…"`, `"agreement.…"` (and the other prefixes below) literal in the server's code is in the catalogs,
    /// and every catalog key is used somewhere: a typo cannot ship as a blank message, and no dead text piles up.
    #[test]
    fn the_code_and_the_catalogs_name_the_same_keys() {
        let mut used = BTreeSet::new();
        let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    // An escaped quote inside a literal (HTML attributes) or a quote character would throw the pairing
                    // of quotes off.
                    let source = std::fs::read_to_string(&path)
                        .unwrap()
                        .replace("\\\"", "")
                        .replace("'\"'", "");
                    for piece in source.split('"').skip(1).step_by(2) {
                        let is_key = [
                            "error.",
                            "field.",
                            "sms.",
                            "agreement.",
                            "reminder.",
                            "receipt.",
                            "support.",
                            "menu.",
                            "pdf.",
                            "account.",
                            "data_export.",
                        ]
                        .iter()
                        .any(|p| piece.starts_with(p) && piece.len() > p.len())
                            && piece.len() < 60
                            && piece
                                .bytes()
                                .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'.');
                        if is_key {
                            used.insert(piece.to_owned());
                        }
                    }
                }
            }
        }
        // Error codes are named by the code they share with the API (`error.{code}`), so they are found by code.
        for code in crate::error::ERROR_CODES {
            used.insert(format!("error.{code}"));
        }
        // Complaint categories are named by their code (`complaint_category.{code}`).
        for code in crate::support::CATEGORIES {
            used.insert(format!("complaint_category.{code}"));
        }
        let known: BTreeSet<String> = EN.0.keys().cloned().collect();
        let missing: Vec<_> = used.difference(&known).collect();
        assert!(
            missing.is_empty(),
            "used in the code, missing from the catalogs: {missing:?}"
        );
        let unused: Vec<_> = known.difference(&used).collect();
        assert!(
            unused.is_empty(),
            "in the catalogs, used nowhere: {unused:?}"
        );
    }

    #[test]
    fn placeholders_are_filled_and_unknown_ones_kept() {
        assert_eq!(
            format(Lang::En, "field.too_long", &[("max", "100")]),
            "At most 100 characters."
        );
        assert_eq!(
            format(
                Lang::Id,
                "field.amount_out_of_range",
                &[("min", "Rp1"), ("max", "Rp2")]
            ),
            "Pilih jumlah dari Rp1 sampai Rp2."
        );
        assert_eq!(
            format(Lang::En, "field.too_long", &[]),
            "At most {max} characters."
        );
        assert_eq!(format(Lang::En, "nope.nothing", &[]), "nope.nothing");
    }
}
