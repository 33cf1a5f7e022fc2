//! Keyed hashes of the values that identify a borrower, so that the same PAN/NIK, phone or bank account on another
//! borrower is found without decrypting the table (docs/ARCHITECTURE.md, "Data at rest"). Each value is normalised
//! first, then hashed with the server's MAC key (`Secrets::mac`, HMAC-SHA-256 under a key derived from
//! `KILAT_SECRET_KEY`) for a purpose of its kind: without the key a stolen database cannot test guesses.
//!
//! - `id`: the PAN or NIK, upper-case, without spaces;
//! - `phone`: E.164 (the borrower's own, `phone`; the emergency contacts', `contact1Phone` and `contact2Phone`);
//! - `bank`: the bank's code and the account's digits (`HDFC:50100123456789`): an account number is unique within
//!   its bank, whichever branch's IFSC was typed.
//!
//! Written in the transaction that writes the encrypted value; the rows written before migration 0035 get theirs
//! once at the first start after it ([`backfill`]); erasure deletes them with the rest of the PII.

use super::{BankInfo, BaseInfo, ExtendedInfo, Step, StepData};
use crate::infra::crypto::{Binding, Secrets};
use crate::store::fingerprints::Fingerprint;
use crate::store::{Db, StartupMarker};

pub const KIND_ID: &str = "id";
pub const KIND_PHONE: &str = "phone";
pub const KIND_BANK: &str = "bank";

/// The field of the borrower's own phone.
pub const FIELD_PHONE: &str = "phone";

fn hash(secrets: &Secrets, kind: &str, normalised: &str) -> String {
    secrets.mac(&format!("fingerprint/{kind}"), normalised)
}

/// An ID number as compared: upper-case, letters and digits only.
pub fn normalise_id(id: &str) -> String {
    id.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A bank account as compared: the bank's code (upper-case) and the account's digits.
pub fn normalise_bank(bank: &BankInfo) -> String {
    let digits: String = bank
        .account_number
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    format!("{}:{digits}", bank.bank_code.trim().to_ascii_uppercase())
}

/// The fingerprint of a borrower's own phone (E.164).
pub fn own_phone(secrets: &Secrets, e164: &str) -> Fingerprint {
    Fingerprint {
        field: FIELD_PHONE,
        kind: KIND_PHONE,
        hash: hash(secrets, KIND_PHONE, e164),
    }
}

/// The fields a step's fingerprints are stored under (all replaced when the step is saved again).
pub fn fields_of(step: Step) -> &'static [&'static str] {
    match step {
        Step::Base => &["idNumber"],
        Step::Extended => &["contact1Phone", "contact2Phone"],
        Step::Bank => &["bankAccount"],
        Step::Personal | Step::Job => &[],
    }
}

/// A saved step's fingerprints.
pub fn of_step(secrets: &Secrets, data: &StepData) -> Vec<Fingerprint> {
    match data {
        StepData::Base(BaseInfo { id_number, .. }) => vec![Fingerprint {
            field: "idNumber",
            kind: KIND_ID,
            hash: hash(secrets, KIND_ID, &normalise_id(id_number)),
        }],
        StepData::Extended(ExtendedInfo {
            contact1_phone,
            contact2_phone,
            ..
        }) => vec![
            Fingerprint {
                field: "contact1Phone",
                kind: KIND_PHONE,
                hash: hash(secrets, KIND_PHONE, contact1_phone.trim()),
            },
            Fingerprint {
                field: "contact2Phone",
                kind: KIND_PHONE,
                hash: hash(secrets, KIND_PHONE, contact2_phone.trim()),
            },
        ],
        StepData::Bank(bank) => vec![Fingerprint {
            field: "bankAccount",
            kind: KIND_BANK,
            hash: hash(secrets, KIND_BANK, &normalise_bank(bank)),
        }],
        StepData::Personal(_) | StepData::Job(_) => Vec::new(),
    }
}

/// What the backfill wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Backfilled {
    pub borrowers: usize,
    pub fingerprints: usize,
}

/// Borrowers backfilled per read: their phones and steps are held in memory a page at a time.
const BORROWERS_PER_PAGE: i64 = 200;

/// Writes the fingerprints and masked phones of the borrowers that existed before migration 0035, in one transaction,
/// if that is still to do (the migration's `fingerprint_backfill_pending` row, deleted in the same transaction: two
/// servers starting at once backfill once). Erased accounts have nothing to hash. Fails, and the server does not
/// start, when a value does not decrypt (another `secret_key`?).
pub async fn backfill(db: &Db, secrets: &Secrets) -> anyhow::Result<Backfilled> {
    let mut done = Backfilled::default();
    let mut tx = db.begin().await?;
    if !tx.take_marker(StartupMarker::Fingerprints).await? {
        tx.rollback().await?;
        return Ok(done);
    }
    let mut after = String::new();
    loop {
        let page = tx.live_borrowers_after(&after, BORROWERS_PER_PAGE).await?;
        let Some(last) = page.last() else { break };
        after.clone_from(&last.id);
        for row in page {
            let e164 = secrets.decrypt(
                &row.phone_enc,
                Binding::BorrowerPhone {
                    borrower_id: &row.id,
                },
            )?;
            let phone = kilat_domain::Phone::parse(row.market, &e164)
                .map_err(|err| anyhow::anyhow!("borrower {}'s stored phone: {err}", row.id))?;
            tx.set_phone_masked(&row.id, &phone.masked()).await?;
            let mut prints = vec![own_phone(secrets, phone.e164())];
            let mut fields: Vec<&str> = vec![FIELD_PHONE];
            for stored in tx.certification_steps_in(&row.id).await? {
                let data =
                    super::open_sealed_step(secrets, &row.id, stored.step, &stored.data_enc)?;
                fields.extend_from_slice(fields_of(stored.step));
                prints.extend(of_step(secrets, &data));
            }
            done.fingerprints += prints.len();
            tx.replace_fingerprints(&row.id, &fields, &prints).await?;
            done.borrowers += 1;
        }
    }
    tx.commit().await?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_normalised_before_hashing() {
        assert_eq!(normalise_id(" abcde 1234f "), "ABCDE1234F");
        let bank = |code: &str, number: &str| BankInfo {
            bank_code: code.into(),
            account_number: number.into(),
            ifsc: None,
        };
        assert_eq!(
            normalise_bank(&bank("hdfc", "5010 0123-4567")),
            "HDFC:501001234567"
        );
        let secrets = Secrets::from_settings(None, crate::settings::Mode::Development).unwrap();
        let a = of_step(&secrets, &StepData::Bank(bank("HDFC", "501001234567")));
        let b = of_step(&secrets, &StepData::Bank(bank("hdfc", "5010 0123 4567")));
        assert_eq!(a, b);
        let c = of_step(&secrets, &StepData::Bank(bank("ICIC", "501001234567")));
        assert_ne!(a, c);
        // The hash names nothing of the value.
        assert!(!a[0].hash.contains("501001234567"));
    }
}
