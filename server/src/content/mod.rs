//! Reference content shipped with the binary (`server/data/`): the certification forms' enumerations, banks, states
//! and cities, and the privacy policy, labelled in the reader's language.
//!
//! Like the message catalogs (`crate::i18n`), it is part of the binary, the same on every server and for the whole
//! run: it is parsed once, at start-up ([`load`]: a broken file stops the start), and read through [`reference`].

mod reference;

use std::sync::LazyLock;

pub use reference::{
    BankChoice, Choice, City, EnumKind, PrivacyPolicy, PrivacySection, ReferenceData, Region,
};

static REFERENCE: LazyLock<anyhow::Result<ReferenceData>> = LazyLock::new(ReferenceData::load);

/// Parses and checks the embedded files, once: start-up calls it before anything reads them.
pub fn load() -> anyhow::Result<&'static ReferenceData> {
    REFERENCE
        .as_ref()
        .map_err(|e| anyhow::anyhow!("the reference data (server/data/): {e:#}"))
}

/// The reference data. Start-up has loaded it ([`load`]), and this module's tests check the files the binary
/// carries, so it is there; were the files broken, the server would not have started.
pub fn reference() -> &'static ReferenceData {
    match &*REFERENCE {
        Ok(data) => data,
        Err(e) => panic!("the reference data embedded in the binary does not load: {e:#}"),
    }
}
