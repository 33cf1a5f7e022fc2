//! The language of a request's messages: English for India, Indonesian otherwise (PRODUCT.md §1).

/// A language the server writes its texts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    En,
    Id,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Id];

    /// An `Accept-Language` value starting with `en` means English; anything else, or nothing, Indonesian (the default
    /// market).
    pub fn from_accept_language(value: Option<&str>) -> Self {
        let english = value.is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("en"));
        if english { Self::En } else { Self::Id }
    }

    /// The language of a market's borrowers.
    pub fn of_market(market: kilat_domain::Market) -> Self {
        match market {
            kilat_domain::Market::India => Self::En,
            kilat_domain::Market::Indonesia => Self::Id,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Id => "id",
        }
    }
}
