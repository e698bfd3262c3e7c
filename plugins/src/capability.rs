//! Capabilities: unguessable keys that give their holder, and only their holder, a thing a
//! service keeps for many clients (a role group, a player's dice profile). The service hands the
//! key to whoever creates the thing and keeps only the key's digest, so neither its files nor
//! the time a comparison takes give a key away.

use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A new key: 128 bits from the operating system's generator, in hex.
pub fn new_key() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    hex(&bytes)
}

/// What a service stores of a key: its SHA-256, in hex.
pub fn digest(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fresh_and_their_digests_fixed() {
        let (a, b) = (new_key(), new_key());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(digest(&a), digest(&a));
        assert_ne!(digest(&a), digest(&b));
        // SHA-256 of "abc", the FIPS 180-2 test vector.
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
