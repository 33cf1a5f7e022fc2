//! Reference content shipped with the binary (`server/data/`): the certification forms' enumerations, banks, states
//! and cities, and the privacy policy, labelled in the reader's language.

mod reference;

pub use reference::{
    BankChoice, Choice, City, EnumKind, PrivacyPolicy, PrivacySection, ReferenceData, Region,
};
