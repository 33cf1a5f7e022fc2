//! Secrets at rest: keyed hashes for lookups and one-time codes, authenticated encryption for PII, random tokens.
//!
//! One 32-byte key from the settings (`secret_key`, 64 hex digits) derives a MAC key and an encryption key. In
//! development a fixed, public key is used with a warning; production refuses to start without a key of its own.

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::Aead;
use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::settings::Mode;

/// The development key: public, so nothing encrypted with it is protected.
const DEVELOPMENT_KEY: [u8; 32] = *b"kilat-development-key-NOT-SECRET";

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
        let key = match secret_key
            .map(|k| k.expose_secret().trim().to_owned())
            .filter(|k| !k.is_empty())
        {
            Some(hex_key) => {
                let bytes =
                    hex::decode(&hex_key).context("KILAT_SECRET_KEY must be 64 hex digits")?;
                <[u8; 32]>::try_from(bytes.as_slice())
                    .ok()
                    .context("KILAT_SECRET_KEY must be 64 hex digits (32 bytes)")?
            }
            None if mode == Mode::Production => {
                bail!(
                    "KILAT_SECRET_KEY is required in production: generate one with `openssl rand -hex 32`"
                )
            }
            None => {
                tracing::warn!(
                    "no KILAT_SECRET_KEY: using the public development key; never do this with real data"
                );
                DEVELOPMENT_KEY
            }
        };
        Ok(Self::from_key(&key))
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

    /// Encrypts with a fresh random nonce: `base64url(nonce ‖ ciphertext ‖ tag)`.
    pub fn encrypt(&self, plaintext: &str) -> String {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).expect("the operating system's random source works");
        let ciphertext = self
            .cipher
            .encrypt(&XNonce::from(nonce), plaintext.as_bytes())
            .expect("encrypting into memory cannot fail");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ciphertext);
        URL_SAFE_NO_PAD.encode(out)
    }

    /// Decrypts what `encrypt` made; fails on a wrong key or any change to the stored text.
    pub fn decrypt(&self, stored: &str) -> anyhow::Result<String> {
        let bytes = URL_SAFE_NO_PAD
            .decode(stored)
            .context("encrypted value is not base64")?;
        if bytes.len() < 24 + 16 {
            bail!("encrypted value is too short");
        }
        let (nonce, ciphertext) = bytes.split_at(24);
        let nonce = XNonce::try_from(nonce).context("nonce length")?;
        let plain = self.cipher.decrypt(&nonce, ciphertext).map_err(|_| {
            anyhow::anyhow!("encrypted value failed authentication (wrong key or tampered)")
        })?;
        String::from_utf8(plain).context("decrypted value is not UTF-8")
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

    #[test]
    fn encryption_round_trips_with_a_fresh_nonce_and_detects_tampering() {
        let s = secrets();
        let a = s.encrypt("+919876543210");
        let b = s.encrypt("+919876543210");
        assert_ne!(a, b, "each encryption has its own nonce");
        assert!(!a.contains("9876543210"));
        assert_eq!(s.decrypt(&a).unwrap(), "+919876543210");
        let mut tampered = a.into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(s.decrypt(&String::from_utf8(tampered).unwrap()).is_err());
        assert!(
            Secrets::from_key(&[8; 32]).decrypt(&b).is_err(),
            "another key cannot read it"
        );
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
        let good = SecretString::from("11".repeat(32));
        assert!(Secrets::from_settings(Some(&good), Mode::Production).is_ok());
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
