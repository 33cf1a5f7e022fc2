//! Reference data shipped with the product (`server/data/`): the enumerations of the certification forms with their
//! labels in both languages, the banks of each market, the states/provinces and their cities, and the privacy
//! policy. Parsed and checked once at start-up; a broken file stops the start.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, bail, ensure};
use kilat_domain::{Lender, Market};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::i18n::Lang;

const ENUMS: &str = include_str!("../../data/enums.toml");
const CITIES_IN: &str = include_str!("../../data/cities-in.json");
const CITIES_ID: &str = include_str!("../../data/cities-id.json");
const PRIVACY: &str = include_str!("../../data/privacy.toml");

/// The lists of the certification forms, by the name the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EnumKind {
    Gender,
    Education,
    MaritalStatus,
    ResidenceType,
    EmploymentType,
    Relation,
}

impl EnumKind {
    const ALL: [Self; 6] = [
        Self::Gender,
        Self::Education,
        Self::MaritalStatus,
        Self::ResidenceType,
        Self::EmploymentType,
        Self::Relation,
    ];

    fn file_key(self) -> &'static str {
        match self {
            Self::Gender => "gender",
            Self::Education => "education",
            Self::MaritalStatus => "marital_status",
            Self::ResidenceType => "residence_type",
            Self::EmploymentType => "employment_type",
            Self::Relation => "relation",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnumEntry {
    code: String,
    en: String,
    id: String,
    markets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BankEntry {
    market: String,
    code: String,
    name: String,
}

#[derive(Debug, Deserialize)]
struct EnumsFile {
    gender: Vec<EnumEntry>,
    education: Vec<EnumEntry>,
    marital_status: Vec<EnumEntry>,
    residence_type: Vec<EnumEntry>,
    employment_type: Vec<EnumEntry>,
    relation: Vec<EnumEntry>,
    bank: Vec<BankEntry>,
}

/// One choice of a list, labelled in the request's language.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Choice {
    pub code: String,
    pub label: String,
}

/// A bank of the market. In India `code` is the bank's IFSC prefix.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BankChoice {
    pub code: String,
    pub label: String,
    /// India only: the first four letters of the bank's IFSC codes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ifsc_prefix: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct City {
    pub code: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Region {
    pub code: String,
    pub name: String,
    pub cities: Vec<City>,
}

#[derive(Debug, Deserialize)]
struct CitiesFile {
    regions: Vec<Region>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PrivacySection {
    pub heading: String,
    pub paragraphs: Vec<String>,
}

/// The privacy policy in one language, with the app's name and the lender's name and licence filled in.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PrivacyPolicy {
    pub title: String,
    /// `YYYY-MM-DD`.
    pub updated: String,
    pub sections: Vec<PrivacySection>,
}

#[derive(Debug, Deserialize)]
struct PrivacyFile {
    updated: String,
    en: PrivacyText,
    id: PrivacyText,
}

#[derive(Debug, Deserialize)]
struct PrivacyText {
    title: String,
    sections: Vec<PrivacyTextSection>,
}

#[derive(Debug, Deserialize)]
struct PrivacyTextSection {
    heading: String,
    paragraphs: Vec<String>,
}

struct Labelled {
    code: String,
    en: String,
    id: String,
}

/// Everything in `server/data/`, parsed and checked.
pub struct ReferenceData {
    lists: HashMap<(Market, EnumKind), Vec<Labelled>>,
    banks: HashMap<Market, Vec<(String, String)>>,
    regions: HashMap<Market, Vec<Region>>,
    privacy: PrivacyFile,
}

impl ReferenceData {
    /// Parses and checks the embedded files: unique codes, no empty list or label, every city under a region.
    pub fn load() -> anyhow::Result<Self> {
        let file: EnumsFile = toml::from_str(ENUMS).context("server/data/enums.toml")?;
        let entries = |kind: EnumKind| -> &Vec<EnumEntry> {
            match kind {
                EnumKind::Gender => &file.gender,
                EnumKind::Education => &file.education,
                EnumKind::MaritalStatus => &file.marital_status,
                EnumKind::ResidenceType => &file.residence_type,
                EnumKind::EmploymentType => &file.employment_type,
                EnumKind::Relation => &file.relation,
            }
        };
        let mut lists = HashMap::new();
        for market in [Market::India, Market::Indonesia] {
            for kind in EnumKind::ALL {
                let mut seen = HashSet::new();
                let mut list = Vec::new();
                for entry in entries(kind) {
                    let markets = entry.markets.as_deref().unwrap_or(&[]);
                    for m in markets {
                        ensure!(
                            crate::auth::parse_market(m).is_some(),
                            "enums.toml: {} {}: unknown market {m}",
                            kind.file_key(),
                            entry.code
                        );
                    }
                    if !markets.is_empty()
                        && !markets
                            .iter()
                            .any(|m| m == crate::auth::market_code(market))
                    {
                        continue;
                    }
                    ensure!(
                        !entry.code.trim().is_empty()
                            && !entry.en.trim().is_empty()
                            && !entry.id.trim().is_empty(),
                        "enums.toml: {} has an entry with an empty code or label",
                        kind.file_key()
                    );
                    ensure!(
                        seen.insert(entry.code.clone()),
                        "enums.toml: {} {} appears twice",
                        kind.file_key(),
                        entry.code
                    );
                    list.push(Labelled {
                        code: entry.code.clone(),
                        en: entry.en.clone(),
                        id: entry.id.clone(),
                    });
                }
                ensure!(
                    !list.is_empty(),
                    "enums.toml: {} is empty for {market:?}",
                    kind.file_key()
                );
                lists.insert((market, kind), list);
            }
        }
        let mut banks: HashMap<Market, Vec<(String, String)>> = HashMap::new();
        let mut seen = HashSet::new();
        for bank in &file.bank {
            let Some(market) = crate::auth::parse_market(&bank.market) else {
                bail!(
                    "enums.toml: bank {}: unknown market {}",
                    bank.code,
                    bank.market
                );
            };
            ensure!(
                seen.insert((market, bank.code.clone())),
                "enums.toml: bank {} appears twice",
                bank.code
            );
            if market == Market::India {
                ensure!(
                    bank.code.len() == 4 && bank.code.bytes().all(|b| b.is_ascii_uppercase()),
                    "enums.toml: Indian bank {} must be its 4-letter IFSC prefix",
                    bank.code
                );
            }
            banks
                .entry(market)
                .or_default()
                .push((bank.code.clone(), bank.name.clone()));
        }
        for list in banks.values_mut() {
            list.sort_by(|a, b| a.1.cmp(&b.1));
        }
        let mut regions = HashMap::new();
        for (market, name, text) in [
            (Market::India, "cities-in.json", CITIES_IN),
            (Market::Indonesia, "cities-id.json", CITIES_ID),
        ] {
            ensure!(
                banks.contains_key(&market),
                "enums.toml: no bank for {market:?}"
            );
            let file: CitiesFile =
                serde_json::from_str(text).with_context(|| format!("server/data/{name}"))?;
            let mut region_codes = HashSet::new();
            let mut city_codes = HashSet::new();
            for region in &file.regions {
                ensure!(
                    region_codes.insert(region.code.clone()),
                    "{name}: region {} appears twice",
                    region.code
                );
                ensure!(
                    !region.cities.is_empty(),
                    "{name}: region {} has no city",
                    region.code
                );
                for city in &region.cities {
                    ensure!(
                        city_codes.insert(city.code.clone()),
                        "{name}: city {} appears twice",
                        city.code
                    );
                }
            }
            ensure!(!file.regions.is_empty(), "{name} has no region");
            regions.insert(market, file.regions);
        }
        let privacy: PrivacyFile = toml::from_str(PRIVACY).context("server/data/privacy.toml")?;
        ensure!(
            !privacy.en.sections.is_empty() && !privacy.id.sections.is_empty(),
            "privacy.toml needs sections in both languages"
        );
        Ok(Self {
            lists,
            banks,
            regions,
            privacy,
        })
    }

    /// A list of the market with labels in `lang`.
    pub fn choices(&self, market: Market, kind: EnumKind, lang: Lang) -> Vec<Choice> {
        self.lists
            .get(&(market, kind))
            .into_iter()
            .flatten()
            .map(|e| Choice {
                code: e.code.clone(),
                label: match lang {
                    Lang::En => e.en.clone(),
                    Lang::Id => e.id.clone(),
                },
            })
            .collect()
    }

    /// True when `code` is one of the market's choices of `kind`.
    pub fn has(&self, market: Market, kind: EnumKind, code: &str) -> bool {
        self.lists
            .get(&(market, kind))
            .is_some_and(|l| l.iter().any(|e| e.code == code))
    }

    /// The label of a choice in `lang`, or the code itself when unknown.
    pub fn label(&self, market: Market, kind: EnumKind, code: &str, lang: Lang) -> String {
        self.lists
            .get(&(market, kind))
            .and_then(|l| l.iter().find(|e| e.code == code))
            .map_or_else(
                || code.to_owned(),
                |e| match lang {
                    Lang::En => e.en.clone(),
                    Lang::Id => e.id.clone(),
                },
            )
    }

    pub fn banks(&self, market: Market) -> Vec<BankChoice> {
        self.banks
            .get(&market)
            .into_iter()
            .flatten()
            .map(|(code, name)| BankChoice {
                code: code.clone(),
                label: name.clone(),
                ifsc_prefix: (market == Market::India).then(|| code.clone()),
            })
            .collect()
    }

    /// The bank's name, when the market has a bank with this code.
    pub fn bank_name(&self, market: Market, code: &str) -> Option<&str> {
        self.banks
            .get(&market)?
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, name)| name.as_str())
    }

    pub fn regions(&self, market: Market) -> &[Region] {
        self.regions.get(&market).map_or(&[], Vec::as_slice)
    }

    /// The region's and city's names when the city belongs to the region.
    pub fn place(&self, market: Market, region: &str, city: &str) -> Option<(&str, &str)> {
        let region = self.regions(market).iter().find(|r| r.code == region)?;
        let city = region.cities.iter().find(|c| c.code == city)?;
        Some((region.name.as_str(), city.name.as_str()))
    }

    pub fn region_exists(&self, market: Market, region: &str) -> bool {
        self.regions(market).iter().any(|r| r.code == region)
    }

    /// The privacy policy in `lang`, with `{app}`, `{lender}` and `{licence}` filled in from the lender of the
    /// language's market.
    pub fn privacy(&self, lang: Lang, app: &str, lender: &Lender) -> PrivacyPolicy {
        let text = match lang {
            Lang::En => &self.privacy.en,
            Lang::Id => &self.privacy.id,
        };
        let fill = |s: &str| {
            s.replace("{app}", app)
                .replace("{lender}", &lender.name)
                .replace("{licence}", &lender.licence)
        };
        PrivacyPolicy {
            title: fill(&text.title),
            updated: self.privacy.updated.clone(),
            sections: text
                .sections
                .iter()
                .map(|s| PrivacySection {
                    heading: fill(&s.heading),
                    paragraphs: s.paragraphs.iter().map(|p| fill(p)).collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_data_loads_and_covers_both_markets() {
        let data = ReferenceData::load().expect("the data files are valid");
        for market in [Market::India, Market::Indonesia] {
            for kind in EnumKind::ALL {
                assert!(!data.choices(market, kind, Lang::En).is_empty(), "{kind:?}");
            }
            assert!(data.banks(market).len() >= 10, "{market:?} banks");
        }
        // All 36 states and union territories of India, all 38 provinces of Indonesia.
        assert_eq!(data.regions(Market::India).len(), 36);
        assert_eq!(data.regions(Market::Indonesia).len(), 38);
        assert!(data.has(Market::India, EnumKind::Gender, "male"));
        assert!(!data.has(Market::India, EnumKind::Gender, "nobody"));
        assert_eq!(data.bank_name(Market::India, "HDFC"), Some("HDFC Bank"));
        assert_eq!(
            data.banks(Market::India)[0]
                .ifsc_prefix
                .as_deref()
                .map(str::len),
            Some(4)
        );
        assert!(data.banks(Market::Indonesia)[0].ifsc_prefix.is_none());
    }

    #[test]
    fn a_city_must_belong_to_its_region() {
        let data = ReferenceData::load().unwrap();
        let region = &data.regions(Market::India)[0];
        let city = &region.cities[0];
        assert!(
            data.place(Market::India, &region.code, &city.code)
                .is_some()
        );
        let other = &data.regions(Market::India)[1];
        assert!(data.place(Market::India, &other.code, &city.code).is_none());
        assert!(
            data.place(Market::Indonesia, &region.code, &city.code)
                .is_none()
        );
    }

    #[test]
    fn labels_follow_the_language_and_privacy_fills_names() {
        let data = ReferenceData::load().unwrap();
        let en = data.label(
            Market::Indonesia,
            EnumKind::MaritalStatus,
            "married",
            Lang::En,
        );
        let id = data.label(
            Market::Indonesia,
            EnumKind::MaritalStatus,
            "married",
            Lang::Id,
        );
        assert_ne!(en, id);
        let lender = Lender {
            name: "Lender Ltd".into(),
            licence: "Licence No. 1 (example)".into(),
            grievance_officer: kilat_domain::GrievanceOfficer {
                name: "A".into(),
                email: "a@x.example".into(),
                phone: "1".into(),
            },
        };
        for lang in [Lang::En, Lang::Id] {
            let all = serde_json::to_string(&data.privacy(lang, "Kilat", &lender)).unwrap();
            for placeholder in ["{app}", "{lender}", "{licence}"] {
                assert!(!all.contains(placeholder), "{placeholder} left in {all}");
            }
            assert!(all.contains("Lender Ltd: Licence No. 1 (example)."));
        }
    }
}
