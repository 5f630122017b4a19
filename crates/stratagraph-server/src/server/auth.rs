//! Who may use the server: SASL PLAIN (what TinkerPop drivers send for a
//! user name and password) checked against a credentials file the
//! operator writes with `stratagraph passwd`.
//!
//! The file holds one user per line, `name:pbkdf2-sha256:ROUNDS:SALT:HASH`
//! (salt and hash in hex; `#` starts a comment): a password is stored only
//! as PBKDF2-HMAC-SHA256 of it with a random salt, so the file does not
//! give the passwords away. PLAIN sends the password itself: without TLS
//! in front of the server, use it on loopback or a trusted network only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pbkdf2::pbkdf2_hmac;
use sha2::Sha256;

/// Rounds of PBKDF2 for a new entry: about 20 ms on this machine's cores,
/// once per connection that logs in.
pub const ROUNDS: u32 = 100_000;

/// The users of a credentials file.
#[derive(Debug, Default)]
pub struct Credentials {
    users: HashMap<String, Entry>,
}

#[derive(Debug)]
struct Entry {
    rounds: u32,
    salt: Vec<u8>,
    hash: Vec<u8>,
}

/// A credentials file that cannot be used, and where.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not `name:pbkdf2-sha256:ROUNDS:SALT:HASH`.
    #[error("{path}, line {line}: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

impl Credentials {
    /// Reads a credentials file.
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed (named by number).
    pub fn load(path: &Path) -> Result<Credentials, CredentialsError> {
        let text = std::fs::read_to_string(path).map_err(|source| CredentialsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut users = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |message: String| CredentialsError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                message,
            };
            let (name, entry) = parse_line(line).map_err(bad)?;
            if users.insert(name.to_string(), entry).is_some() {
                return Err(bad(format!("user {name} is listed twice")));
            }
        }
        Ok(Credentials { users })
    }

    /// How many users it holds.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether it holds no user (then nobody can log in).
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The user a SASL PLAIN response (`[authzid] NUL authcid NUL
    /// password`, as bytes) logs in, if its password is right.
    pub fn check_plain(&self, response: &[u8]) -> Option<String> {
        let mut parts = response.split(|&b| b == 0);
        let (_authzid, user, password) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let user = std::str::from_utf8(user).ok()?;
        let entry = self.users.get(user)?;
        let mut got = vec![0u8; entry.hash.len()];
        pbkdf2_hmac::<Sha256>(password, &entry.salt, entry.rounds, &mut got);
        same(&got, &entry.hash).then(|| user.to_string())
    }
}

/// A credentials-file line for `name` with `password`, under a fresh
/// random salt.
///
/// # Errors
/// The name cannot stand in the file (empty, or holds `:` or a line
/// break), or no random salt could be read.
pub fn entry(name: &str, password: &str) -> Result<String, String> {
    if name.is_empty() || name.contains([':', '\n', '\r']) || name.starts_with('#') {
        return Err(format!(
            "user name {name:?} cannot stand in a credentials file (empty, or with ':', '#' first, or a line break)"
        ));
    }
    let mut salt = [0u8; 16];
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut salt))
        .map_err(|e| format!("no random salt from /dev/urandom: {e}"))?;
    let mut hash = [0u8; 32];
    pbkdf2_hmac::<Sha256>(password.as_bytes(), &salt, ROUNDS, &mut hash);
    Ok(format!(
        "{name}:pbkdf2-sha256:{ROUNDS}:{}:{}",
        hex(&salt),
        hex(&hash)
    ))
}

fn parse_line(line: &str) -> Result<(&str, Entry), String> {
    let fields: Vec<&str> = line.split(':').collect();
    let [name, scheme, rounds, salt, hash] = fields.as_slice() else {
        return Err(format!(
            "expected name:pbkdf2-sha256:ROUNDS:SALT:HASH, found {} fields",
            fields.len()
        ));
    };
    if *scheme != "pbkdf2-sha256" {
        return Err(format!("unknown scheme {scheme:?} (only pbkdf2-sha256)"));
    }
    let rounds: u32 = rounds
        .parse()
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| format!("rounds {rounds:?} is not a positive number"))?;
    let salt = unhex(salt).ok_or_else(|| "the salt is not hex".to_string())?;
    let hash = unhex(hash)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| "the hash is not hex".to_string())?;
    Ok((name, Entry { rounds, salt, hash }))
}

/// Equal bytes, compared in time that does not depend on where they
/// differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_entry_logs_its_user_in_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users");
        let lines = format!(
            "# users\n{}\n{}\n",
            entry("ada", "s3cret").unwrap(),
            entry("bob", "other").unwrap()
        );
        std::fs::write(&path, lines).unwrap();
        let c = Credentials::load(&path).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c.check_plain(b"\0ada\0s3cret").as_deref(), Some("ada"));
        assert_eq!(c.check_plain(b"admin\0ada\0s3cret").as_deref(), Some("ada"));
        assert_eq!(c.check_plain(b"\0ada\0S3cret"), None);
        assert_eq!(c.check_plain(b"\0ada\0other"), None);
        assert_eq!(c.check_plain(b"\0carol\0s3cret"), None);
        assert_eq!(c.check_plain(b"ada\0s3cret"), None);
        assert_eq!(c.check_plain(b"\0ada\0s3cret\0x"), None);
        assert_eq!(c.check_plain(b""), None);
        assert!(entry("a:b", "x").is_err());
        assert!(entry("", "x").is_err());
    }

    #[test]
    fn a_bad_file_is_refused_by_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users");
        for (text, want) in [
            ("ada:plain:secret\n", "line 1: expected"),
            ("\nada:md5:1:00:00\n", "line 2: unknown scheme"),
            ("ada:pbkdf2-sha256:0:00:00\n", "line 1: rounds"),
            (
                "ada:pbkdf2-sha256:10:zz:00\n",
                "line 1: the salt is not hex",
            ),
            ("ada:pbkdf2-sha256:10:00:\n", "line 1: the hash is not hex"),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = Credentials::load(&path).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let line = entry("ada", "x").unwrap();
        std::fs::write(&path, format!("{line}\n{line}\n")).unwrap();
        let e = Credentials::load(&path).unwrap_err().to_string();
        assert!(e.contains("line 2: user ada is listed twice"), "{e}");
        assert!(Credentials::load(&dir.path().join("missing")).is_err());
    }
}
