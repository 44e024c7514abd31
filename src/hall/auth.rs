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

/// How long a login form's token is good for, ms.
pub const FORM_TOKEN_MS: u64 = 3600 * 1000;

/// The hall's own key for its login forms' tokens: drawn at start, never
/// stored, so a token is good only on the hall that issued it, and only
/// since it last started.
pub struct FormKey {
    key: [u8; 32],
}

impl fmt::Debug for FormKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FormKey(..)")
    }
}

impl FormKey {
    /// A key from the operating system's randomness.
    pub fn random() -> Result<FormKey, AuthError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(AuthError::Randomness)?;
        Ok(FormKey { key })
    }

    fn mac(&self, nonce: &[u8], issued_ms: u64) -> [u8; 16] {
        use blake2::digest::{KeyInit, Mac};
        let mut mac = <blake2::Blake2bMac512 as KeyInit>::new_from_slice(&self.key)
            .expect("a 32-byte key is a BLAKE2b key");
        mac.update(b"tocada-hall login form");
        mac.update(nonce);
        mac.update(&issued_ms.to_be_bytes());
        let tag = mac.finalize().into_bytes();
        let mut out = [0u8; 16];
        out.copy_from_slice(&tag[..16]);
        out
    }

    /// A key of zeros, for a machine without randomness (the hall then
    /// logs it): tokens are still checked, but could be forged.
    pub fn zero() -> FormKey {
        FormKey { key: [0; 32] }
    }

    /// A login form's token issued at `now_ms`: a random nonce, the
    /// instant, and the hall's MAC of both, in hex (80 characters).
    pub fn issue(&self, now_ms: u64) -> Result<String, AuthError> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(AuthError::Randomness)?;
        let mut bytes = Vec::with_capacity(40);
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&now_ms.to_be_bytes());
        bytes.extend_from_slice(&self.mac(&nonce, now_ms));
        Ok(hex(&bytes))
    }

    /// Whether `token` is one this key issued within [`FORM_TOKEN_MS`]
    /// before `now_ms`: a forged one costs the hall no password hash.
    pub fn verify(&self, token: &str, now_ms: u64) -> bool {
        let Some(bytes) = unhex(token).filter(|b| b.len() == 40) else {
            return false;
        };
        let (nonce, rest) = bytes.split_at(16);
        let (issued, tag) = rest.split_at(8);
        let issued = u64::from_be_bytes(issued.try_into().unwrap_or([0xff; 8]));
        issued <= now_ms
            && now_ms - issued <= FORM_TOKEN_MS
            && same_token(&hex(tag), &hex(&self.mac(nonce, issued)))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || text.len() > 256 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The login's throttle, sans-IO: failed logins back off exponentially,
/// per address and per name, in a table of bounded size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackoffPolicy {
    /// Failures let through before any wait.
    pub free_failures: u32,
    /// The first wait, ms; each further failure doubles it.
    pub first_ms: u64,
    /// The longest wait, ms.
    pub max_ms: u64,
    /// Addresses and names remembered at most; the stalest go first.
    pub capacity: usize,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        BackoffPolicy {
            free_failures: 3,
            first_ms: 1000,
            max_ms: 60_000,
            capacity: 4096,
        }
    }
}

/// What a login attempt is throttled by: where it came from, and whom it
/// names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Attempt {
    /// The client's address.
    Address(std::net::IpAddr),
    /// The name typed (at most 64 bytes of it).
    Name(String),
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last_ms: u64,
    until_ms: u64,
}

/// Failed logins, by address and by name.
#[derive(Debug, Default)]
pub struct Backoff {
    policy: BackoffPolicy,
    failures: HashMap<Attempt, Failures>,
}

impl Backoff {
    /// An empty table under `policy`.
    pub fn new(policy: BackoffPolicy) -> Backoff {
        Backoff {
            policy,
            failures: HashMap::new(),
        }
    }

    /// The name as a key: names longer than any arbiter's are cut.
    pub fn name(name: &str) -> Attempt {
        let mut end = name.len().min(64);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        Attempt::Name(name[..end].to_owned())
    }

    /// How long `attempt` must still wait at `now_ms`, ms (0: go on).
    pub fn wait_ms(&self, attempt: &Attempt, now_ms: u64) -> u64 {
        self.failures
            .get(attempt)
            .map_or(0, |f| f.until_ms.saturating_sub(now_ms))
    }

    /// Counts a failure of `attempt` at `now_ms`.
    pub fn fail(&mut self, attempt: Attempt, now_ms: u64) {
        let policy = self.policy;
        if !self.failures.contains_key(&attempt) && self.failures.len() >= policy.capacity {
            // Forget first whoever no longer waits, else the stalest.
            self.failures.retain(|_, f| f.until_ms > now_ms);
            if self.failures.len() >= policy.capacity
                && let Some(stalest) = self
                    .failures
                    .iter()
                    .min_by_key(|(_, f)| f.last_ms)
                    .map(|(k, _)| k.clone())
            {
                self.failures.remove(&stalest);
            }
        }
        let entry = self.failures.entry(attempt).or_insert(Failures {
            count: 0,
            last_ms: now_ms,
            until_ms: 0,
        });
        // A long quiet spell forgives: counting starts again.
        if now_ms.saturating_sub(entry.last_ms) > policy.max_ms.saturating_mul(4) {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last_ms = now_ms;
        if entry.count > policy.free_failures {
            let doublings = (entry.count - policy.free_failures - 1).min(32);
            let wait = policy
                .first_ms
                .saturating_mul(1u64 << doublings)
                .min(policy.max_ms);
            entry.until_ms = now_ms.saturating_add(wait);
        }
    }

    /// Forgets `attempt`'s failures (after a good login).
    pub fn forgive(&mut self, attempt: &Attempt) {
        self.failures.remove(attempt);
    }

    /// How many addresses and names it remembers.
    pub fn len(&self) -> usize {
        self.failures.len()
    }

    /// Whether it remembers none.
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
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

    #[test]
    fn a_form_token_is_good_only_from_its_own_hall_and_for_an_hour() {
        let key = FormKey::random().unwrap();
        let token = key.issue(1000).unwrap();
        assert_eq!(token.len(), 80);
        assert!(key.verify(&token, 1000));
        assert!(key.verify(&token, 1000 + FORM_TOKEN_MS));
        assert!(!key.verify(&token, 1001 + FORM_TOKEN_MS));
        assert!(!key.verify(&token, 999));
        // Another hall's key, a forged tag, garbage.
        assert!(!FormKey::random().unwrap().verify(&token, 1000));
        let mut forged = token.clone();
        forged.replace_range(79.., if token.ends_with('0') { "1" } else { "0" });
        assert!(!key.verify(&forged, 1000));
        for bad in ["", "zz", &"0".repeat(80), &"0".repeat(64), "é"] {
            assert!(!key.verify(bad, 1000), "{bad}");
        }
    }

    #[test]
    fn failures_back_off_exponentially_within_a_bounded_table() {
        let policy = BackoffPolicy {
            free_failures: 2,
            first_ms: 1000,
            max_ms: 8000,
            capacity: 100,
        };
        let mut backoff = Backoff::new(policy);
        let ana = Backoff::name("ana");
        let mut waits = Vec::new();
        for _ in 0..7 {
            backoff.fail(ana.clone(), 0);
            waits.push(backoff.wait_ms(&ana, 0));
        }
        assert_eq!(waits, [0, 0, 1000, 2000, 4000, 8000, 8000]);
        assert_eq!(backoff.wait_ms(&ana, 5000), 3000);
        assert_eq!(backoff.wait_ms(&ana, 8000), 0);
        assert_eq!(backoff.wait_ms(&Backoff::name("bea"), 0), 0);
        backoff.forgive(&ana);
        assert_eq!(backoff.wait_ms(&ana, 0), 0);
        // 10 000 forged addresses: the table stays at its capacity, and
        // the newest still wait.
        for i in 0..10_000u32 {
            let address = Attempt::Address(std::net::IpAddr::from(i.to_be_bytes()));
            for _ in 0..3 {
                backoff.fail(address.clone(), u64::from(i));
            }
        }
        assert!(backoff.len() <= 100, "{}", backoff.len());
        let last = Attempt::Address(std::net::IpAddr::from(9_999u32.to_be_bytes()));
        assert!(backoff.wait_ms(&last, 9_999) > 0);
        // A name is cut to 64 bytes, on a character's boundary.
        assert_eq!(
            Backoff::name(&"é".repeat(40)),
            Attempt::Name("é".repeat(32))
        );
    }
}
