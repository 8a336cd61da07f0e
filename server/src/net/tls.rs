//! TLS for the game port (`https://` and `wss://` on one socket): a certificate chain and
//! key from PEM, served by rustls with the `ring` provider.

use std::path::Path;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// Why a certificate or key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read or parsed.
    #[error("{what}: {source}")]
    Pem {
        /// Which file or input, for people.
        what: String,
        /// What went wrong.
        source: rustls_pki_types::pem::Error,
    },
    /// The PEM input held no certificate.
    #[error("{0}: no certificate found")]
    NoCertificate(String),
    /// rustls refused the pair (say, the key does not match the certificate).
    #[error("certificate and key rejected: {0}")]
    Rejected(#[from] rustls::Error),
}

/// A server certificate chain and its key, ready to serve. Cloning shares it.
#[derive(Clone)]
pub struct TlsIdentity {
    pub(crate) config: Arc<ServerConfig>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of logs.
        f.write_str("TlsIdentity { .. }")
    }
}

impl TlsIdentity {
    /// Reads a PEM certificate chain (leaf first) and a PEM private key (PKCS#8, PKCS#1 or
    /// SEC1) from files.
    ///
    /// # Errors
    /// [`TlsError`] if a file cannot be read, holds no certificate or key, or the pair is
    /// refused.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsIdentity, TlsError> {
        let name = |p: &Path| p.display().to_string();
        let certs = CertificateDer::pem_file_iter(cert)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|source| TlsError::Pem {
                what: name(cert),
                source,
            })?;
        let private = PrivateKeyDer::from_pem_file(key).map_err(|source| TlsError::Pem {
            what: name(key),
            source,
        })?;
        TlsIdentity::new(certs, private, &name(cert))
    }

    /// The same from PEM text in memory.
    ///
    /// # Errors
    /// As [`TlsIdentity::from_pem_files`].
    pub fn from_pem(cert: &[u8], key: &[u8]) -> Result<TlsIdentity, TlsError> {
        let certs = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| TlsError::Pem {
                what: "certificate".to_owned(),
                source,
            })?;
        let private = PrivateKeyDer::from_pem_slice(key).map_err(|source| TlsError::Pem {
            what: "private key".to_owned(),
            source,
        })?;
        TlsIdentity::new(certs, private, "certificate")
    }

    fn new(
        certs: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
        what: &str,
    ) -> Result<TlsIdentity, TlsError> {
        if certs.is_empty() {
            return Err(TlsError::NoCertificate(what.to_owned()));
        }
        let mut config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()?
                .with_no_client_auth()
                .with_single_cert(certs, key)?;
        // HTTP/1.1 only; the WebSocket upgrade needs it.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsIdentity {
            config: Arc::new(config),
        })
    }
}
