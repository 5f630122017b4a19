//! TLS in front of the WebSocket (`wss://`), from a certificate chain and
//! a private key in PEM files, as an operator gets them from a CA or from
//! `openssl req -x509`.
//!
//! rustls on its `ring` provider does the protocol; this module only reads
//! the files and says precisely what is wrong with them. A client whose
//! handshake fails or stalls costs only its own connection
//! ([`HANDSHAKE_TIMEOUT`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;

/// How long a client may take over its TLS handshake before its
/// connection is dropped (so half-open connections cannot hold sockets).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the certificate or key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The certificate file holds no PEM certificate, or a damaged one.
    #[error("{}: {message} (expected PEM `-----BEGIN CERTIFICATE-----` blocks, the server's certificate first)", path.display())]
    Certificate {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The key file holds no PEM private key, or a damaged one.
    #[error("{}: {message} (expected one PEM private key: PKCS#8, PKCS#1 RSA or SEC1 EC)", path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// rustls refused the pair (the key does not match the certificate,
    /// or its algorithm is not supported).
    #[error("the certificate in {} and the key in {} cannot serve TLS: {message}", cert.display(), key.display())]
    Config {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// rustls' reason.
        message: String,
    },
}

/// Reads `cert` (the chain, server certificate first) and `key` and
/// builds the acceptor the server wraps each connection in.
///
/// # Errors
/// A file that cannot be read, holds no certificate or key, or a pair
/// rustls refuses; each names the file.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| TlsError::Read {
            path: path.to_owned(),
            source,
        })
    };
    let cert_pem = read(cert)?;
    let key_pem = read(key)?;
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Certificate {
            path: cert.to_owned(),
            message: e.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::Certificate {
            path: cert.to_owned(),
            message: "no certificate in it".into(),
        });
    }
    let private = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| TlsError::Key {
        path: key.to_owned(),
        message: match e {
            rustls_pki_types::pem::Error::NoItemsFound => "no private key in it".into(),
            other => other.to_string(),
        },
    })?;
    let refused = |e: rustls::Error| TlsError::Config {
        cert: cert.to_owned(),
        key: key.to_owned(),
        message: e.to_string(),
    };
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(refused)?
    .with_no_client_auth()
    .with_single_cert(chain, private)
    .map_err(refused)?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_self_signed_pair_is_accepted_and_bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let cert = write(dir.path(), "cert.pem", &made.cert.pem());
        let key = write(dir.path(), "key.pem", &made.signing_key.serialize_pem());
        assert!(acceptor(&cert, &key).is_ok());

        let missing = dir.path().join("nope.pem");
        let e = acceptor(&missing, &key).err().expect("refused");
        assert!(matches!(e, TlsError::Read { .. }), "{e}");
        assert!(e.to_string().contains("nope.pem"), "{e}");

        // The files swapped: no certificate in the key file.
        let e = acceptor(&key, &cert).err().expect("refused");
        assert!(matches!(e, TlsError::Certificate { .. }), "{e}");
        let e = acceptor(&cert, &cert).err().expect("refused");
        assert!(matches!(e, TlsError::Key { .. }), "{e}");
        assert!(e.to_string().contains("cert.pem"), "{e}");

        // A key that is not the certificate's.
        let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let other_key = write(dir.path(), "other.pem", &other.signing_key.serialize_pem());
        let e = acceptor(&cert, &other_key).err().expect("refused");
        assert!(matches!(e, TlsError::Config { .. }), "{e}");
    }
}
