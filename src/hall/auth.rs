//! The arbiter's login: argon2 password hashes, and the sessions and CSRF
//! tokens of the logged-in, sans-IO (the caller passes the time).

use std::collections::HashMap;
use std::fmt;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// How long a login lasts without being used: a round's day.
pub const SESSION_IDLE_MS: u64 = 12 * 3600 * 1000;

/// Why a password could not be hashed, or a token not drawn.
#[derive(Debug)]
pub enum AuthError {
    /// argon2 refused to hash the password.
    Hash(argon2::password_hash::Error),
    /// The operating system gave no randomness.
    Randomness(getrandom::Error),
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Hash(err) => write!(f, "cannot hash the password: {err}"),
            AuthError::Randomness(err) => write!(f, "no randomness: {err}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// Why a configured password hash is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashError {
    /// It is no PHC string; the parser's words.
    NotPhc(String),
    /// A PHC string of another algorithm, named.
    NotArgon2(String),
    /// The hash or its salt is missing.
    Incomplete,
}

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HashError::NotPhc(why) => write!(
                f,
                "not a PHC string ({why}): make one with `tocada-hall hash-password`"
            ),
            HashError::NotArgon2(algorithm) => write!(
                f,
                "{algorithm} is not argon2: make one with `tocada-hall hash-password`"
            ),
            HashError::Incomplete => f.write_str("the hash or its salt is missing"),
        }
    }
}

impl std::error::Error for HashError {}

/// A PHC string of the password, argon2id with the crate's default
/// parameters and a random salt: what `password_hash` in the hall's
/// configuration holds.
pub fn hash_password(password: &str) -> Result<String, AuthError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(AuthError::Hash)
}

/// Whether `password` matches `hash`, a PHC string. A hash that does not
/// parse matches nothing.
pub fn verify_password(hash: &str, password: &str) -> bool {
    match PasswordHash::new(hash) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// Checks that `hash` is an argon2 PHC string, for the configuration.
pub fn check_hash(hash: &str) -> Result<(), HashError> {
    let parsed = PasswordHash::new(hash).map_err(|err| HashError::NotPhc(err.to_string()))?;
    let algorithm = parsed.algorithm.as_str();
    if !algorithm.starts_with("argon2") {
        return Err(HashError::NotArgon2(algorithm.to_owned()));
    }
    if parsed.hash.is_none() || parsed.salt.is_none() {
        return Err(HashError::Incomplete);
    }
    Ok(())
}

/// 32 random bytes from the operating system, in hex: a session or CSRF
/// token.
pub(crate) fn random_token() -> Result<String, AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(AuthError::Randomness)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A logged-in arbiter: one web session (not the clock's
/// [`crate::session::Session`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// Who.
    pub arbiter: String,
    /// The token every action must carry besides the cookie.
    pub csrf: String,
    last_used_ms: u64,
}

/// The arbiters logged in (their web sessions), by cookie token.
#[derive(Debug, Default)]
pub struct Logins {
    by_token: HashMap<String, Login>,
}

impl Logins {
    /// No session.
    pub fn new() -> Logins {
        Logins::default()
    }

    /// Opens a session for `arbiter` at `now_ms`: the cookie's token.
    pub fn open(&mut self, arbiter: &str, now_ms: u64) -> Result<String, AuthError> {
        self.expire(now_ms);
        let token = random_token()?;
        let csrf = random_token()?;
        self.by_token.insert(
            token.clone(),
            Login {
                arbiter: arbiter.to_owned(),
                csrf,
                last_used_ms: now_ms,
            },
        );
        Ok(token)
    }

    /// The session of the cookie `token`, if it is open and not idle too
    /// long; using it keeps it open.
    pub fn get(&mut self, token: &str, now_ms: u64) -> Option<Login> {
        let session = self.by_token.get_mut(token)?;
        if now_ms.saturating_sub(session.last_used_ms) > SESSION_IDLE_MS {
            self.by_token.remove(token);
            return None;
        }
        session.last_used_ms = session.last_used_ms.max(now_ms);
        Some(session.clone())
    }

    /// Ends the session of `token`.
    pub fn close(&mut self, token: &str) {
        self.by_token.remove(token);
    }

    /// How many sessions are open.
    pub fn len(&self) -> usize {
        self.by_token.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.by_token.is_empty()
    }

    fn expire(&mut self, now_ms: u64) {
        self.by_token
            .retain(|_, s| now_ms.saturating_sub(s.last_used_ms) <= SESSION_IDLE_MS);
    }
}

/// Compares two tokens in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let hash = hash_password("hunter42").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(check_hash(&hash).is_ok());
        assert!(verify_password(&hash, "hunter42"));
        assert!(!verify_password(&hash, "hunter43"));
        assert!(!verify_password("garbage", "hunter42"));
        // Salted: the same password hashes differently.
        assert_ne!(hash, hash_password("hunter42").unwrap());
    }

    #[test]
    fn a_session_lasts_while_used_and_ends_when_closed() {
        let mut sessions = Logins::new();
        let token = sessions.open("ana", 0).unwrap();
        assert_eq!(token.len(), 64);
        let session = sessions.get(&token, 1000).unwrap();
        assert_eq!(session.arbiter, "ana");
        assert_ne!(session.csrf, token);
        assert!(sessions.get("forged", 1000).is_none());
        assert!(sessions.get(&token, 1000 + SESSION_IDLE_MS).is_some());
        assert!(sessions.get(&token, 2001 + 2 * SESSION_IDLE_MS).is_none());
        let token = sessions.open("bea", 0).unwrap();
        sessions.close(&token);
        assert!(sessions.get(&token, 1).is_none());
        assert!(same_token("abc", "abc") && !same_token("abc", "abd") && !same_token("ab", "abc"));
    }
}
