//! Secrets at rest: keyed hashes for lookups and one-time codes, authenticated encryption for PII, random tokens.
//!
//! One 32-byte key from the settings (`secret_key`, 64 hex digits) derives a MAC key and an encryption key. In
//! development a fixed, public key is used with a warning; production refuses to start without a key of its own, or
//! with one anybody could guess. Every encrypted value is bound to its row (`Binding`, the associated data).

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::settings::Mode;

/// The development key: public, so nothing encrypted with it is protected.
const DEVELOPMENT_KEY: [u8; 32] = *b"kilat-development-key-NOT-SECRET";

/// Marks the bound format (associated data = the row, see `Binding`); base64url never contains a '.', so a value
/// without it is one written before bindings existed.
pub const BOUND_PREFIX: &str = "v2.";

/// Keys derived from the settings' secret key. Cheap to clone.
#[derive(Clone)]
pub struct Secrets {
    mac_key: [u8; 32],
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secrets(..)")
    }
}

impl Secrets {
    pub fn from_settings(secret_key: Option<&SecretString>, mode: Mode) -> anyhow::Result<Self> {
        match parse_secret_key(secret_key, mode)? {
            Some(key) => Ok(Self::from_key(&key)),
            None => {
                tracing::warn!(
                    "no KILAT_SECRET_KEY: using the public development key; never do this with real data"
                );
                Ok(Self::from_key(&DEVELOPMENT_KEY))
            }
        }
    }

    fn from_key(key: &[u8; 32]) -> Self {
        let derive = |label: &[u8]| -> [u8; 32] {
            let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(key)
                .expect("HMAC takes any key length");
            mac.update(label);
            mac.finalize().into_bytes().into()
        };
        let mac_key = derive(b"kilat/mac/v1");
        let cipher =
            XChaCha20Poly1305::new_from_slice(&derive(b"kilat/encrypt/v1")).expect("a 32-byte key");
        Self { mac_key, cipher }
    }

    /// A keyed hash (HMAC-SHA-256, hex) of `value` for `purpose`: equal inputs give equal outputs, so it can be looked
    /// up, but without the key a stolen database cannot test guesses (a 6-digit code has only a million).
    pub fn mac(&self, purpose: &str, value: &str) -> String {
        let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(&self.mac_key)
            .expect("HMAC takes any key length");
        mac.update(purpose.as_bytes());
        mac.update(&[0]);
        mac.update(value.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// Compares `value`'s MAC with a stored one in constant time.
    pub fn mac_matches(&self, purpose: &str, value: &str, stored: &str) -> bool {
        use subtle::ConstantTimeEq;
        self.mac(purpose, value)
            .as_bytes()
            .ct_eq(stored.as_bytes())
            .into()
    }

    /// Encrypts with a fresh random nonce, bound to `binding`: `v2.` + `base64url(nonce ‖ ciphertext ‖ tag)`.
    pub fn encrypt(&self, plaintext: &str, binding: Binding<'_>) -> String {
        let aad = binding.associated_data();
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).expect("the operating system's random source works");
        let ciphertext = self
            .cipher
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: aad.as_bytes(),
                },
            )
            .expect("encrypting into memory cannot fail");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ciphertext);
        format!("{BOUND_PREFIX}{}", URL_SAFE_NO_PAD.encode(out))
    }

    /// Decrypts what `encrypt` made for the same `binding`; fails on a wrong key, another row's blob, any change to the
    /// stored text, and the unbound format written before bindings existed (start-up reseals those once, see
    /// `store::reseal`).
    pub fn decrypt(&self, stored: &str, binding: Binding<'_>) -> anyhow::Result<String> {
        let Some(bound) = stored.strip_prefix(BOUND_PREFIX) else {
            bail!("encrypted value is in the unbound format of before v2, which is no longer read");
        };
        let aad = binding.associated_data();
        self.open(bound, aad.as_bytes()).map_err(|err| {
            err.context(format!(
                "decrypting {}",
                aad.split(':').next().unwrap_or_default()
            ))
        })
    }

    /// Reads the unbound format of before v2 (no prefix, no associated data): only to reseal it at start-up.
    pub fn decrypt_unbound(&self, stored: &str) -> anyhow::Result<String> {
        self.open(stored, b"")
    }

    fn open(&self, encoded: &str, aad: &[u8]) -> anyhow::Result<String> {
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .context("encrypted value is not base64")?;
        if bytes.len() < 24 + 16 {
            bail!("encrypted value is too short");
        }
        let (nonce, ciphertext) = bytes.split_at(24);
        let nonce = XNonce::try_from(nonce).context("nonce length")?;
        let plain = self
            .cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: ciphertext,
                    aad,
                },
            )
            .map_err(|_| {
                anyhow::anyhow!(
                    "encrypted value failed authentication (wrong key, another row's value, or tampered)"
                )
            })?;
        String::from_utf8(plain).context("decrypted value is not UTF-8")
    }
}

/// The settings' secret key as 32 bytes, `None` when unset in development (the public key is used then). Refuses a
/// malformed key anywhere, and in production a missing key or one anybody could guess: the development key, all
/// zeros, or any one byte repeated (what a placeholder such as `00…00` or `ab…ab` gives).
pub fn parse_secret_key(
    secret_key: Option<&SecretString>,
    mode: Mode,
) -> anyhow::Result<Option<[u8; 32]>> {
    let Some(hex_key) = secret_key
        .map(|k| k.expose_secret().trim().to_owned())
        .filter(|k| !k.is_empty())
    else {
        if mode == Mode::Production {
            bail!(
                "KILAT_SECRET_KEY is required in production: generate one with `openssl rand -hex 32`"
            );
        }
        return Ok(None);
    };
    let bytes = hex::decode(&hex_key).context("KILAT_SECRET_KEY must be 64 hex digits")?;
    let key = <[u8; 32]>::try_from(bytes.as_slice())
        .ok()
        .context("KILAT_SECRET_KEY must be 64 hex digits (32 bytes)")?;
    if mode == Mode::Production {
        if key == DEVELOPMENT_KEY {
            bail!(
                "KILAT_SECRET_KEY is the public development key: production needs its own, from `openssl rand -hex 32`"
            );
        }
        if let Some(weakness) = weak_key(&key) {
            bail!(
                "KILAT_SECRET_KEY is {weakness} (a placeholder, not a secret): generate one with `openssl rand -hex 32`"
            );
        }
    }
    Ok(Some(key))
}

/// Why a 32-byte key is not random, or `None`. Each test is one a key from a random source fails with a
/// probability below 10⁻¹³ (32 random bytes have about 30 distinct values; under 16 distinct is the lower tail),
/// so only placeholders and patterns are refused: `00…00`, `deadbeef`×8, `0123456789abcdef`×4, `000102…1f`,
/// a passphrase written in hex.
pub fn weak_key(key: &[u8; 32]) -> Option<String> {
    if key.iter().all(|b| *b == key[0]) {
        return Some("one byte repeated".to_owned());
    }
    if let Some(period) = (1..=16).find(|p| key.iter().zip(&key[*p..]).all(|(a, b)| a == b)) {
        return Some(format!("a pattern of {period} bytes repeated"));
    }
    let mut seen = [false; 256];
    for b in key {
        seen[usize::from(*b)] = true;
    }
    let distinct = seen.iter().filter(|s| **s).count();
    if distinct < MIN_DISTINCT_KEY_BYTES {
        return Some(format!(
            "only {distinct} distinct bytes of 32 (a random key has about 30)"
        ));
    }
    let step = key[1].wrapping_sub(key[0]);
    if key.windows(2).all(|w| w[1].wrapping_sub(w[0]) == step) {
        return Some("a counting sequence".to_owned());
    }
    if key.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        return Some("text written in hex, not random bytes".to_owned());
    }
    None
}

/// Fewer distinct bytes than this in a 32-byte key: a pattern (random keys have about 30).
const MIN_DISTINCT_KEY_BYTES: usize = 16;

/// The shortest secret production takes: 24 characters (`openssl rand -hex 32` gives 64).
pub const MIN_SECRET_CHARS: usize = 24;

/// Words of placeholders and test values: a secret containing one was typed by a person, not generated.
const PLACEHOLDER_WORDS: [&str; 9] = [
    "changeme",
    "password",
    "passwd",
    "secret",
    "test",
    "example",
    "sample",
    "placeholder",
    "replaceme",
];

/// Why a shared secret (a provider's webhook secret or API key) is one anybody could guess, or `None`: shorter than
/// [`MIN_SECRET_CHARS`]; a development value (`dev-…` in any case); a placeholder word in it (`changeme`, `secret`,
/// `password`, `test`, …, compared without case or punctuation); a pattern repeated (`abcabc…`); or fewer than 6
/// distinct characters. A random secret of 24 hex digits has about 12.
pub fn weak_secret(secret: &str) -> Option<String> {
    let secret = secret.trim();
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() < MIN_SECRET_CHARS {
        return Some(format!(
            "shorter than {MIN_SECRET_CHARS} characters ({})",
            chars.len()
        ));
    }
    let lower = secret.to_lowercase();
    if lower.starts_with("dev-") || lower.starts_with("dev_") {
        return Some("a development value (it starts with dev-)".to_owned());
    }
    let letters: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    if let Some(word) = PLACEHOLDER_WORDS.iter().find(|w| letters.contains(*w)) {
        return Some(format!("a placeholder (it contains \"{word}\")"));
    }
    if (1..=chars.len() / 2).any(|p| chars.iter().zip(&chars[p..]).all(|(a, b)| a == b)) {
        return Some("a pattern repeated".to_owned());
    }
    let mut distinct = chars.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 6 {
        return Some(format!("only {} distinct characters", distinct.len()));
    }
    None
}

/// What an encrypted value belongs to. It is the associated data of the encryption, so a blob copied to another row
/// (another borrower's phone, another step) fails authentication instead of being read as that row's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding<'a> {
    /// `borrowers.phone_enc` of the borrower with this id.
    BorrowerPhone { borrower_id: &'a str },
    /// `certification_steps.data_enc` of one borrower's step.
    CertificationStep { borrower_id: &'a str, step: &'a str },
    /// One column (`name_enc`, `telephone_enc`, `email_enc`) of a contact message.
    ContactMessage { id: &'a str, column: &'a str },
    /// `complaint_messages.body_enc` of the message with this id (a complaint's text or a reply).
    ComplaintMessage { id: &'a str },
    /// `orders.agreement_json` of the order with this id: the agreement frozen at confirm, which names the borrower.
    OrderAgreement { order_id: &'a str },
    /// `statement_lines.narration_enc` of one line of a bank statement import (it names the payer).
    StatementNarration { import_id: &'a str, line_no: i64 },
    /// `collection_contacts.note_enc` of the contact attempt with this id (an agent's note about the borrower).
    CollectionNote { id: &'a str },
}

impl Binding<'_> {
    fn associated_data(&self) -> String {
        // Ids are UUIDs and steps and columns fixed names: none contains ':', so the encoding is unambiguous.
        match self {
            Binding::BorrowerPhone { borrower_id } => format!("borrowers.phone_enc:{borrower_id}"),
            Binding::CertificationStep { borrower_id, step } => {
                format!("certification_steps.data_enc:{borrower_id}:{step}")
            }
            Binding::ContactMessage { id, column } => format!("contact_messages.{column}:{id}"),
            Binding::ComplaintMessage { id } => format!("complaint_messages.body_enc:{id}"),
            Binding::OrderAgreement { order_id } => format!("orders.agreement_json:{order_id}"),
            Binding::StatementNarration { import_id, line_no } => {
                format!("statement_lines.narration_enc:{import_id}:{line_no}")
            }
            Binding::CollectionNote { id } => format!("collection_contacts.note_enc:{id}"),
        }
    }
}

/// 32 random bytes as URL-safe base64: a session token.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A uniformly random 6-digit code (rejection sampling: no modulo bias).
pub fn random_code() -> String {
    loop {
        let mut bytes = [0u8; 4];
        getrandom::fill(&mut bytes).expect("the operating system's random source works");
        let n = u32::from_le_bytes(bytes);
        // 4_294_000_000 is the largest multiple of 1_000_000 below 2^32.
        if n < 4_294_000_000 {
            return format!("{:06}", n % 1_000_000);
        }
    }
}

/// SHA-256 (hex) of a high-entropy token; no key needed, a 256-bit token cannot be guessed.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        Secrets::from_key(&[7; 32])
    }

    const PHONE_OF_A: Binding<'static> = Binding::BorrowerPhone { borrower_id: "a" };

    #[test]
    fn encryption_round_trips_with_a_fresh_nonce_and_detects_tampering() {
        let s = secrets();
        let a = s.encrypt("+919876543210", PHONE_OF_A);
        let b = s.encrypt("+919876543210", PHONE_OF_A);
        assert_ne!(a, b, "each encryption has its own nonce");
        assert!(a.starts_with("v2."));
        assert!(!a.contains("9876543210"));
        assert_eq!(s.decrypt(&a, PHONE_OF_A).unwrap(), "+919876543210");
        let mut tampered = a.into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(
            s.decrypt(&String::from_utf8(tampered).unwrap(), PHONE_OF_A)
                .is_err()
        );
        assert!(
            Secrets::from_key(&[8; 32]).decrypt(&b, PHONE_OF_A).is_err(),
            "another key cannot read it"
        );
    }

    #[test]
    fn a_value_decrypts_only_for_the_row_and_column_it_was_encrypted_for() {
        let s = secrets();
        let step = |borrower_id, step| Binding::CertificationStep { borrower_id, step };
        let blob = s.encrypt("{}", step("a", "bank"));
        assert_eq!(s.decrypt(&blob, step("a", "bank")).unwrap(), "{}");
        let err = s.decrypt(&blob, step("b", "bank")).unwrap_err();
        assert!(
            format!("{err:#}").contains("another row's value"),
            "{err:#}"
        );
        assert!(s.decrypt(&blob, step("a", "job")).is_err());
        let name = s.encrypt(
            "Asha",
            Binding::ContactMessage {
                id: "m1",
                column: "name_enc",
            },
        );
        let as_email = Binding::ContactMessage {
            id: "m1",
            column: "email_enc",
        };
        assert!(
            s.decrypt(&name, as_email).is_err(),
            "nor another column of the row"
        );
    }

    #[test]
    fn the_unbound_format_of_before_v2_is_refused_by_decrypt_and_read_only_by_decrypt_unbound() {
        let s = secrets();
        let bound = s.encrypt("+919876543210", PHONE_OF_A);
        // What `encrypt` wrote before bindings: the same layout with no prefix and no associated data.
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).unwrap();
        let mut legacy = nonce.to_vec();
        legacy.extend(
            s.cipher
                .encrypt(&XNonce::from(nonce), b"+919876543210".as_slice())
                .unwrap(),
        );
        let legacy = URL_SAFE_NO_PAD.encode(legacy);
        let err = s.decrypt(&legacy, PHONE_OF_A).unwrap_err();
        assert!(err.to_string().contains("unbound format"), "{err}");
        assert_eq!(s.decrypt_unbound(&legacy).unwrap(), "+919876543210");
        assert!(s.decrypt_unbound(&bound).is_err());
    }

    #[test]
    fn macs_depend_on_the_key_and_the_purpose_and_compare_exactly() {
        let s = secrets();
        let m = s.mac("login-code", "+91…:123456");
        assert_eq!(m, s.mac("login-code", "+91…:123456"));
        assert_ne!(m, s.mac("phone", "+91…:123456"));
        assert_ne!(
            m,
            Secrets::from_key(&[8; 32]).mac("login-code", "+91…:123456")
        );
        assert!(s.mac_matches("login-code", "+91…:123456", &m));
        assert!(!s.mac_matches("login-code", "+91…:123457", &m));
    }

    #[test]
    fn production_refuses_to_start_without_a_key_and_a_bad_key_is_explained() {
        let err = Secrets::from_settings(None, Mode::Production).unwrap_err();
        assert!(err.to_string().contains("KILAT_SECRET_KEY is required"));
        let short = SecretString::from("abcd");
        assert!(Secrets::from_settings(Some(&short), Mode::Development).is_err());
        let good = SecretString::from(GOOD_KEY);
        assert!(Secrets::from_settings(Some(&good), Mode::Production).is_ok());
    }

    /// A key from `openssl rand -hex 32`.
    const GOOD_KEY: &str = "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a";

    #[test]
    fn production_refuses_a_key_anybody_could_guess_and_development_accepts_it() {
        let development_key = hex::encode(DEVELOPMENT_KEY);
        for (key, says) in [
            ("00".repeat(32), "one byte repeated"),
            ("ab".repeat(32), "one byte repeated"),
            ("FF".repeat(32), "one byte repeated"),
            (development_key, "public development key"),
        ] {
            let key = SecretString::from(key);
            let err = parse_secret_key(Some(&key), Mode::Production).unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
            assert!(err.to_string().contains("openssl rand -hex 32"), "{err}");
            assert!(parse_secret_key(Some(&key), Mode::Development).is_ok());
        }
        let good = SecretString::from(GOOD_KEY);
        assert!(
            parse_secret_key(Some(&good), Mode::Production)
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn production_refuses_keys_with_a_pattern_or_few_distinct_bytes() {
        let ascii_text = hex::encode(b"kilat-production-secret-key-2026");
        let counting: String = (0u8..32).map(|b| format!("{b:02x}")).collect();
        let falling: String = (0u8..32).map(|b| format!("{:02x}", 250 - 3 * b)).collect();
        // 16 random bytes, twice.
        let halves = "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e".repeat(2);
        // 32 bytes drawn from 8 values, in no repeating order.
        let eight_values = "0102030405060708080706050403020101030507020406080807050302040601";
        for (key, says) in [
            ("deadbeef".repeat(8), "a pattern of 4 bytes repeated"),
            (
                "0123456789abcdef".repeat(4),
                "a pattern of 8 bytes repeated",
            ),
            (halves, "a pattern of 16 bytes repeated"),
            (eight_values.to_owned(), "only 8 distinct bytes"),
            (counting, "a counting sequence"),
            (falling, "a counting sequence"),
            (ascii_text, "text written in hex"),
        ] {
            let secret = SecretString::from(key.clone());
            let err = parse_secret_key(Some(&secret), Mode::Production).unwrap_err();
            assert!(err.to_string().contains(says), "{key}: {err}");
            assert!(err.to_string().starts_with("KILAT_SECRET_KEY is "), "{err}");
            assert!(!err.to_string().contains(&key), "the key is never printed");
            assert!(
                parse_secret_key(Some(&secret), Mode::Development).is_ok(),
                "development takes any well-formed key"
            );
        }
        // Keys from a random source pass.
        for _ in 0..10_000 {
            let mut key = [0u8; 32];
            getrandom::fill(&mut key).unwrap();
            assert_eq!(weak_key(&key), None, "{}", hex::encode(key));
        }
        assert_eq!(weak_key(&hex_key(GOOD_KEY)), None);
    }

    fn hex_key(hex_key: &str) -> [u8; 32] {
        hex::decode(hex_key).unwrap().try_into().unwrap()
    }

    #[test]
    fn a_shared_secret_is_weak_when_short_a_development_value_a_placeholder_or_a_pattern() {
        for (secret, says) in [
            ("", "shorter than 24 characters (0)"),
            ("x", "shorter than 24 characters (1)"),
            ("changeme", "shorter than 24"),
            ("secret", "shorter than 24"),
            ("password", "shorter than 24"),
            ("test", "shorter than 24"),
            ("q7Rv2KxN9pLm4TzW8cYb3Hd", "shorter than 24 characters (23)"),
            ("dev-razorpay-webhook-secret", "development value"),
            ("DEV-razorpay-webhook-secret", "development value"),
            ("Dev_xendit-callback-token-0001", "development value"),
            ("please-Change-Me-before-going-live", "\"changeme\""),
            ("dragonpay-production-password", "\"password\""),
            ("xendit production token for TEST", "\"test\""),
            ("razorpay-production-secret", "\"secret\""),
            ("our-example-webhook-value-2026", "\"example\""),
            ("abcabcabcabcabcabcabcabc", "a pattern repeated"),
            ("Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9", "a pattern repeated"),
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a pattern repeated"),
            ("aaaabbbbccccddddeeeeaaaabbbb", "only 5 distinct characters"),
        ] {
            let weakness = weak_secret(secret).unwrap_or_else(|| panic!("{secret:?} passed"));
            assert!(weakness.contains(says), "{secret:?}: {weakness}");
        }
        for strong in [
            "q7Rv2KxN9pLm4TzW8cYb3HdF",
            "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a",
            "whsec_Lk29vQpX7mN3rT8cYb4HdF1s",
            "xnd_production_Q9v2LmT7cX4pR8kW1zN6bY3hJ5dF0sG",
            "  q7Rv2KxN9pLm4TzW8cYb3HdF  ",
        ] {
            assert_eq!(weak_secret(strong), None, "{strong}");
        }
        // What `openssl rand -hex 12` (the shortest accepted) and longer make.
        for bytes in [12, 16, 32] {
            for _ in 0..2_000 {
                let mut random = vec![0u8; bytes];
                getrandom::fill(&mut random).unwrap();
                let secret = hex::encode(random);
                assert_eq!(weak_secret(&secret), None, "{secret}");
            }
        }
    }

    #[test]
    fn codes_have_six_digits_and_tokens_are_long_and_distinct() {
        for _ in 0..1000 {
            let code = random_code();
            assert_eq!(code.len(), 6);
            assert!(code.chars().all(|c| c.is_ascii_digit()));
        }
        assert_ne!(random_token(), random_token());
        assert_eq!(random_token().len(), 43);
    }
}
